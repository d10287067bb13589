/**
 * The client under load for a CPU profile: `node --cpu-prof --cpu-prof-dir=.bench-profiles/client
 * --import tsx bench/profile-client.ts [inFlight=20] [seconds=4]`, then
 * `npx tsx bench/profile-summary.ts <profile> 30 <seconds × 1000>`. The server (node:http, 200
 * with a ResumeResult) runs in a child process, so the profile holds the client only. A third
 * argument `openapi-fetch` profiles openapi-fetch alone (`raw.POST` of a bare `createClient`),
 * the baseline `resume()` is measured against.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import createClient from 'openapi-fetch';
import type { paths } from '../generated/api.js';
import { createSessionsClient } from '../client/index.js';
import { RESUME_PATH } from '@session-resume-api/runtime/resume-path';
import { BENCH_KEY } from './targets.js';

const inFlight = Number(process.argv[2] ?? 20);
const seconds = Number(process.argv[3] ?? 4);
const variant = process.argv[4] ?? 'resume';
const server = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('serve-target.ts', import.meta.url)), 'http-resumed'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const [line] = (await once(server.stdout, 'data')) as [Buffer];
const baseUrl = line.toString().trim();
const client = createSessionsClient({ baseUrl, apiKey: BENCH_KEY });
const raw = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${BENCH_KEY}`, 'user-agent': 'bench' } });
const call = variant === 'openapi-fetch' ? () => raw.POST(RESUME_PATH, { params: { path: { session_id: 's1' } } }) : () => client.resume('s1');
const end = performance.now() + seconds * 1000;
let calls = 0;
await Promise.all(
  Array.from({ length: inFlight }, async () => {
    while (performance.now() < end) {
      await call();
      calls++;
    }
  }),
);
process.stdout.write(`${variant}: ${(calls / seconds).toFixed(0)} calls/s with ${inFlight} in flight\n`);
server.kill('SIGTERM');
await once(server, 'exit');
