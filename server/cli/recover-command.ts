/**
 * `session-resume-api-server webhooks recover --since <time> --until <time> [--status failed|dead]
 * [--dry-run] [--json]`: lists, or puts back to be delivered now, every event whose last attempt
 * failed in the window (server/webhooks/recover-by-time.ts), with counts. Idempotent.
 */
import { Command, Option } from 'commander';
import type { RecoverResult } from '../webhooks/recover-by-time.js';
import type { RedisDelivery } from '../webhooks/redis-delivery.js';
import { UsageError } from '@session-resume-api/runtime/usage-error';

/** Where the command writes. */
interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Runs one command's work against the engine; resolves when its exit code is set. */
type Run = (work: (delivery: RedisDelivery) => Promise<number>) => () => Promise<void>;

interface RecoverFlags {
  since: Date;
  until: Date;
  status: 'failed' | 'dead';
  dryRun?: boolean;
  json?: boolean;
}

/** Adds `recover` to the `webhooks` group. */
export function addRecover(group: Command, run: Run, io: Io): void {
  group
    .command('recover')
    .description('deliver again every event whose last attempt failed in a window of time (dead letters, or events waiting for a retry); --dry-run lists them')
    .requiredOption('--since <time>', 'start of the window, ISO 8601 (e.g. 2026-11-28T02:10:00Z), inclusive', time('--since'))
    .requiredOption('--until <time>', 'end of the window, ISO 8601, exclusive', time('--until'))
    .addOption(new Option('--status <status>', 'dead: dead letters; failed: events waiting for a retry').choices(['failed', 'dead']).default('dead'))
    .option('--dry-run', 'list the events, change nothing')
    .addOption(new Option('--json', 'print JSON'))
    .action((flags: RecoverFlags) => {
      if (flags.until.getTime() <= flags.since.getTime()) throw new UsageError('--until must be later than --since.');
      return run(async (delivery) => {
        const result = await delivery.recover({ since: flags.since, until: flags.until, status: flags.status, dryRun: flags.dryRun === true });
        io.out(flags.json ? `${JSON.stringify(result)}\n` : describe(result));
        return 0;
      })();
    });
}

function time(flag: string): (value: string) => Date {
  return (value) => {
    const ms = /^\d{4}-\d\d-\d\d(T|$)/.test(value) ? Date.parse(value) : Number.NaN;
    if (!Number.isFinite(ms)) throw new UsageError(`${flag} ${value} is not an ISO 8601 time such as 2026-11-28T02:10:00Z.`);
    return new Date(ms);
  };
}

function describe(result: RecoverResult): string {
  const lines = result.events.map((e) => `${e.failedAt}  ${e.id}  ${e.payload.event} ${e.payload.session.id}${result.dryRun ? '' : e.requeued ? '  requeued' : '  already requeued'}`);
  const verb = result.dryRun ? 'would requeue' : 'requeued';
  return `${[...lines, `${result.matched} ${result.status} event(s) in the window; ${verb} ${result.dryRun ? result.matched : result.requeued}`].join('\n')}\n`;
}
