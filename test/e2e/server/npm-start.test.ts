/**
 * The README promise `npm ci && npm start`: with only PORT set, `npm start` runs the
 * reference server on its in-memory store with the demo sessions and a generated
 * development key printed in its log, serves the contract, and stops cleanly on SIGTERM.
 */
import { afterAll, expect, it } from 'vitest';
import { DEMO_SESSIONS } from '../../../server/sessions/session-seeds.js';
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js';

let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop('SIGKILL');
});

/** The server's pid (pino `base`) from the JSON log line saying a development key was generated. */
function devKeyLine(log: string): { pid?: number } {
  for (const line of log.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { pid?: number; msg?: string };
    if (entry.msg?.includes('API_KEYS is unset')) return entry;
  }
  return {};
}

it('npm start: demo session resumes once, then not_paused; /openapi.yaml and /docs served; SIGTERM exits 0', { timeout: 60_000 }, async () => {
  server = await startServerProcess({}, 'npm-start');
  const { pid } = devKeyLine(server.output());
  // The key is printed in the plain-text banner on stderr, never in the JSON log on stdout.
  const apiKey = /Development API key \(generated for this run[^)]*\): (dev_\S+)/.exec(server.stderr())?.[1];
  expect(apiKey, server.output()).toMatch(/^dev_/);
  expect(server.stdout(), server.stdout()).not.toContain(apiKey);
  const paused = DEMO_SESSIONS.find((s) => s.status === 'paused')!.id;
  const resume = () => fetch(`${server!.url}/v1/sessions/${paused}/resume`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` } });
  const first = await resume();
  expect(first.status).toBe(200);
  expect(await first.json()).toMatchObject({ success: true });
  const second = await resume();
  expect(second.status).toBe(409);
  // Source spec §4 rule 3: the not_paused marker in the body text.
  expect(await second.json()).toMatchObject({ success: false, error: 'not_paused' });
  const spec = await fetch(`${server.url}/openapi.yaml`);
  expect(spec.status).toBe(200);
  expect(await spec.text()).toMatch(/^openapi: 3\./m);
  // The HTML reference needs no extra step: `npm ci` built it (the `prepare` script).
  const docs = await fetch(`${server.url}/docs`);
  expect(docs.status).toBe(200);
  expect(docs.headers.get('content-type')).toMatch(/^text\/html/);
  // npm does not forward SIGTERM: signal the server process itself (as an orchestrator
  // stopping the container would); its exit 0 passes through tsx and npm.
  expect(pid).toEqual(expect.any(Number));
  process.kill(pid!, 'SIGTERM');
  expect(await server.exited).toBe(0);
  expect(server.output()).toContain('"msg":"stopped"');
  server = undefined;
});
