/**
 * The client under load for a CPU profile: `node --cpu-prof --cpu-prof-dir=.bench-profiles/client
 * --import tsx bench/profile-client.ts [inFlight=20] [seconds=4]`, then
 * `npx tsx bench/profile-summary.ts <profile> 30 <seconds × 1000>`. The server (node:http, 200
 * with a ResumeResult) runs in a child process, so the profile holds the client only.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createSessionsClient } from '../client/index.js';
import { BENCH_KEY } from './targets.js';

const inFlight = Number(process.argv[2] ?? 20);
const seconds = Number(process.argv[3] ?? 4);
const server = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('serve-target.ts', import.meta.url)), 'http-resumed'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const [line] = (await once(server.stdout, 'data')) as [Buffer];
const client = createSessionsClient({ baseUrl: line.toString().trim(), apiKey: BENCH_KEY });
const end = performance.now() + seconds * 1000;
let calls = 0;
await Promise.all(
  Array.from({ length: inFlight }, async () => {
    while (performance.now() < end) {
      await client.resume('s1');
      calls++;
    }
  }),
);
process.stdout.write(`client.resume(): ${(calls / seconds).toFixed(0)} calls/s with ${inFlight} in flight\n`);
server.kill('SIGTERM');
await once(server, 'exit');
