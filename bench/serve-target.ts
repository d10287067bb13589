/**
 * Starts one bench target in its own process and prints its URL on stdout, for CPU profiles
 * (`node --cpu-prof --import tsx bench/serve-target.ts <name> [redisUrl]`), the client cases
 * and the isolated load cases. With an IPC channel, answers the message `cpu` with its
 * `process.cpuUsage()` (µs), so the bench can divide the server's own CPU by its requests.
 * SIGTERM exits 0, so `--cpu-prof` writes its profile.
 */
import { startTarget, TARGET_NAMES, type TargetName } from './targets.js';

const name = process.argv[2] as TargetName;
if (!TARGET_NAMES.includes(name)) {
  process.stderr.write(`usage: serve-target.ts <${TARGET_NAMES.join('|')}> [redisUrl]\n`);
  process.exit(2);
}
const target = await startTarget(name, process.argv[3]);
process.on('message', (message) => {
  if (message === 'cpu') process.send?.(process.cpuUsage());
});
process.stdout.write(`${target.url}\n`);
process.on('SIGTERM', () => void target.stop().finally(() => process.exit(0)));
