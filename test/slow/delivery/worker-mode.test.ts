/**
 * Delivery apart from serving: an instance with WEBHOOK_WORKER=0 only writes events; a
 * `session-resume-api-server worker` process delivers them. Own redis-server, loopback only.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import {
  deliveriesFor,
  postResume,
  serverEnv,
  startHttpsReceiver,
  startPrivateRedis,
  startServerProcess,
  writeFixtures,
  type HttpsReceiver,
  type ServerProcess,
} from '../../helpers/delivery-fixture.js';
import { waitFor } from '../../helpers/wait-for.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
let redis: Awaited<ReturnType<typeof startPrivateRedis>> | undefined;
let receiver: HttpsReceiver | undefined;
let server: ServerProcess | undefined;
let worker: ReturnType<typeof spawn> | undefined;

afterAll(async () => {
  worker?.kill('SIGKILL');
  await server?.stop('SIGKILL');
  await receiver?.close();
  await redis?.stop();
});

it('WEBHOOK_WORKER=0 serves without delivering; the worker command delivers, and exits 0 on SIGTERM', async () => {
  redis = await startPrivateRedis();
  receiver = await startHttpsReceiver();
  const files = writeFixtures(receiver, ['w1']);
  const env = serverEnv(redis.url, receiver, files);
  server = await startServerProcess({ ...env, WEBHOOK_WORKER: '0' });
  expect((await postResume(server.url, 'w1')).status).toBe(200);
  await new Promise((r) => setTimeout(r, 1500));
  expect(deliveriesFor(receiver, 'w1')).toHaveLength(0);

  worker = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', 'worker'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  worker.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  worker.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => worker!.once('exit', resolve));
  await waitFor(() => deliveriesFor(receiver!, 'w1').length === 1, { timeoutMs: 30_000, what: `the worker's delivery\n${output}` });
  // The worker says where it delivers and counts its own attempts on its metrics listener.
  expect(output).toContain('delivered by this instance');
  const metricsUrl = /metrics at (http:\/\/[^"\s]+)/.exec(output)?.[1];
  expect(metricsUrl, output).toBeDefined();
  const delivered = /session_resume_webhook_attempts_total\{result="delivered"\} 1\b/;
  let scraped = '';
  await waitFor(async () => delivered.test((scraped = await (await fetch(metricsUrl!)).text())), { what: 'the worker counting its delivery' }).catch(
    (err: Error) => {
      throw new Error(
        `${err.message}\n${scraped
          .split('\n')
          .filter((line) => line.startsWith('session_resume'))
          .join('\n')}`,
      );
    },
  );
  worker.kill('SIGTERM');
  expect(await exited).toBe(0);
}, 60_000);
