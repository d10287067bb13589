/**
 * The receivers of the witness suite and the verdict expected of each, per rule, written down
 * from each library's documentation before the grader ran (receiver-witness.test.ts grades them;
 * docs/receiver.md shows `witnessRows()`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DELIVERY_RULES, type DeliveryRuleId } from '@session-resume-api/runtime/delivery/delivery-rules';
import { generateWebhookSecret } from '../../../cli/listen/run-listen.js';
import { startCreatedReceiver, startHonoReceiver, startSvixReceiver } from './receiver-node-libraries.js';

const here = fileURLToPath(new URL('.', import.meta.url));

/** How a rule is graded, as the text report spells it. */
export type Grade = 'pass' | 'FAIL' | 'n/o';

/** What the grader is given: URLs (one per instance) and the user's options; `stops` to clean up. */
export interface Target {
  urls: string[];
  args: string[];
}

/** Where the receivers keep files, and what to stop afterwards. */
export interface WitnessRun {
  dir: string;
  stops: (() => Promise<unknown> | void)[];
}

/** One receiver and its expected verdicts. */
export interface Witness {
  library: string;
  start(run: WitnessRun): Promise<Target>;
  /** Every rule not named here is expected to pass. */
  expected: Partial<Record<DeliveryRuleId, Grade>>;
}

export const ONE_INSTANCE = { 'duplicate-other-instance': 'n/o', 'dedupe-shared': 'n/o' } as const;
export const NO_SECRET = { 'signature-valid': 'n/o', 'signature-invalid': 'n/o' } as const;

/** Starts the Python receiver with `args`; resolves with its base URL once it listens. */
async function startPython(run: WitnessRun, args: string[]): Promise<string> {
  const proc: ChildProcess = spawn('python3', [join(here, 'receiver-python-http-server.py'), ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
  run.stops.push(() => void proc.kill('SIGKILL'));
  const port = await new Promise<string>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`python3 exited with ${code}`)));
    proc.stdout?.on('data', (d: Buffer) => {
      const m = /listening (\d+)/.exec(d.toString());
      if (m) resolve(m[1] as string);
    });
  });
  return `http://127.0.0.1:${port}`;
}

export const WITNESSES: Witness[] = [
  {
    // Two processes on one sqlite3 file: INSERT OR IGNORE inside BEGIN IMMEDIATE lets exactly one
    // copy through, across threads and processes; HMAC checked as Standard Webhooks says.
    library: 'Python http.server + sqlite3 (two instances, --secret)',
    async start(run) {
      const secret = generateWebhookSecret();
      const db = join(run.dir, 'seen.db');
      const a = await startPython(run, ['--dedupe', db, '--secret', secret]);
      const b = await startPython(run, ['--dedupe', db, '--secret', secret]);
      return { urls: [`${a}/hooks`, `${b}/hooks`], args: ['--secret', secret, '--observe', `${a}/processed`] };
    },
    expected: {},
  },
  {
    // Processes every copy: at-least-once delivery makes it handle a duplicate twice.
    library: 'Python http.server without dedupe',
    async start(run) {
      const a = await startPython(run, []);
      return { urls: [`${a}/hooks`], args: ['--observe', `${a}/processed`] };
    },
    expected: { dedupe: 'FAIL', ...ONE_INSTANCE, ...NO_SECRET },
  },
  {
    // Answers 200 after 6 s: past the 5 s deadline the delivery has failed, whatever comes later.
    library: 'Python http.server answering after 6 s',
    async start(run) {
      const a = await startPython(run, ['--delay', '6']);
      return { urls: [`${a}/hooks`], args: [] };
    },
    expected: {
      ack: 'FAIL',
      'ack-burst': 'n/o',
      'duplicate-again': 'n/o',
      'duplicate-after-delay': 'n/o',
      'duplicate-concurrent': 'n/o',
      'duplicate-other-instance': 'n/o',
      dedupe: 'n/o',
      'dedupe-shared': 'n/o',
      'payload-forms': 'n/o',
      'unknown-event': 'n/o',
      'late-event': 'n/o',
      'out-of-order': 'n/o',
      ...NO_SECRET,
      'ack-headroom': 'FAIL',
    },
  },
  {
    // svix verify: a bad signature or a timestamp 10 min old throws, answered 400 (not 2xx).
    library: 'svix 1.82.0 (Node, --secret)',
    async start(run) {
      const secret = generateWebhookSecret();
      const receiver = await startSvixReceiver(secret);
      run.stops.push(() => receiver.close());
      return { urls: [receiver.url], args: ['--secret', secret, '--observe', receiver.observe] };
    },
    expected: { ...ONE_INSTANCE },
  },
  {
    // hono answers c.json() with 200 and checks no signature: forged deliveries are taken.
    library: 'hono 4.13.19 on @hono/node-server (graded with --secret)',
    async start(run) {
      const receiver = await startHonoReceiver();
      run.stops.push(() => receiver.close());
      return { urls: [receiver.url], args: ['--secret', generateWebhookSecret(), '--observe', receiver.observe] };
    },
    expected: { ...ONE_INSTANCE, 'signature-invalid': 'FAIL' },
  },
  {
    // 201 is not 200: every delivery fails, so no duplicate is ever sent (its first copy failed).
    library: 'node:http answering 201',
    async start(run) {
      const receiver = await startCreatedReceiver();
      run.stops.push(() => receiver.close());
      return { urls: [receiver.url], args: ['--observe', receiver.observe] };
    },
    expected: {
      ack: 'FAIL',
      'ack-burst': 'FAIL',
      'duplicate-again': 'n/o',
      'duplicate-after-delay': 'n/o',
      'duplicate-concurrent': 'FAIL',
      'duplicate-other-instance': 'n/o',
      dedupe: 'n/o',
      'dedupe-shared': 'n/o',
      'payload-forms': 'FAIL',
      'unknown-event': 'FAIL',
      'late-event': 'FAIL',
      'out-of-order': 'FAIL',
      ...NO_SECRET,
    },
  },
];

/** The table as docs/receiver.md shows it: the rules expected not to pass, then "every other rule". */
export function witnessRows(graded: (w: Witness, rule: DeliveryRuleId) => Grade = (w, rule) => w.expected[rule] ?? 'pass'): string[] {
  return WITNESSES.flatMap((w) => {
    const named = DELIVERY_RULES.filter((r) => w.expected[r.id] !== undefined).map(
      (r) => `| ${w.library} | \`${r.id}\` | ${w.expected[r.id]} | ${graded(w, r.id)} |`,
    );
    return [...named, `| ${w.library} | every other rule | pass | pass |`];
  });
}
