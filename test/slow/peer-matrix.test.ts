/**
 * The consumer package with the oldest and the newest bullmq and ioredis its peer ranges allow:
 * the packed tarball is installed (no --force, so a peer conflict fails) into a fresh project
 * beside each pair, and three receiver processes of that project share one Redis. Every
 * distinct event is processed, every duplicate (each event is delivered to all three) once.
 * The versions are read from the registry through `npm view <name>@<range> version`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { installProject, root, run, sharedPackages, type Tarball } from '../helpers/package-tarball.js';
import { deletePrefix, uniquePrefix } from '../helpers/redis-keys.js';
import { countBy, doneIds, startReceiverProcess, type ReceiverProcess } from '../helpers/receiver-processes.js';
import { waitFor } from '../helpers/wait-for.js';

const redisUrl = inject('redisUrl');
const prefix = uniquePrefix('peer-matrix');
const EVENTS = 150;
const INSTANCES = 3;

/** The receiver program of a consumer project: the protocol of test/helpers/receiver-process.ts, on the installed package. */
const receiverProgram = `
import { createServer } from 'node:http';
import { createWebhookReceiver } from 'session-resume-api/webhooks';
import { createRedisEventStore } from 'session-resume-api/webhooks/redis';

const config = JSON.parse(process.argv[2]);
const write = (line) => process.stdout.write(line + '\\n');
const receiver = createWebhookReceiver({
  store: createRedisEventStore({ url: config.redisUrl, prefix: config.prefix, concurrency: 10, stalledIntervalMs: 1000 }),
  retryDelayMs: 100,
  onEvent: async (event, ctx) => {
    write('START ' + event.session.id + ' ' + ctx.attempt);
    write('DONE ' + event.session.id + ' ' + event.timestamp);
  },
  onError: (error, ctx) => write('ERROR ' + ctx.event.session.id + ' ' + String(error)),
});
const server = createServer(receiver.handler);
server.keepAliveTimeout = 1000;
server.listen(config.port, '127.0.0.1', () => write('READY ' + config.port));
process.once('SIGTERM', () => {
  server.close();
  void receiver.close().then(() => process.exit(0));
});
`;

/** Oldest and newest published versions within `range` (npm lists them in semver order). */
async function ends(name: string, range: string): Promise<[string, string]> {
  const { stdout } = await run('npm', ['view', `${name}@${range}`, 'version', '--json'], { cwd: root });
  const parsed = JSON.parse(stdout) as string | string[];
  const versions = (Array.isArray(parsed) ? parsed : [parsed]).filter((v) => !v.includes('-'));
  return [versions[0]!, versions.at(-1)!];
}

const peers = (JSON.parse(readFileSync(join(root, 'client/package.json'), 'utf8')) as { peerDependencies: Record<string, string> }).peerDependencies;
let work: string;
let tarball: Tarball;
const processes: ReceiverProcess[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sra-peers-'));
  tarball = (await sharedPackages()).client;
}, 300_000);

afterAll(async () => {
  await Promise.all(processes.map((p) => p.kill()));
  await deletePrefix(redisUrl, prefix);
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('session-resume-api/webhooks/redis across its peer ranges', () => {
  it.each([
    ['oldest', 0],
    ['newest', 1],
  ] as const)('%s bullmq and ioredis: three instances on one Redis process each event once', { timeout: 300_000 }, async (label, end) => {
    const [bullmq, ioredis] = await Promise.all([ends('bullmq', peers.bullmq!), ends('ioredis', peers.ioredis!)]);
    const wanted = { bullmq: bullmq[end], ioredis: ioredis[end] };
    const dir = await installProject(work, `peers-${label}`, [tarball.file, `bullmq@${wanted.bullmq}`, `ioredis@${wanted.ioredis}`], {
      'receiver.mjs': receiverProgram,
    });
    const installed = (name: string) => (JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    expect({ bullmq: installed('bullmq'), ioredis: installed('ioredis') }).toEqual(wanted);

    const config = { redisUrl, prefix: `${prefix}-${label}` };
    const instances = await Promise.all(Array.from({ length: INSTANCES }, () => startReceiverProcess(config, { script: 'receiver.mjs', cwd: dir })));
    processes.push(...instances);
    const ids = Array.from({ length: EVENTS }, (_, i) => `sess_${label}_${Date.now()}_${i}`);
    // Each event goes to every instance at once: two of the three deliveries are duplicates.
    const statuses = await Promise.all(
      ids.flatMap((id) => {
        const body = JSON.stringify({ event: 'session.resumed', session: { id }, timestamp: new Date().toISOString() });
        return instances.map((p) => fetch(`${p.url}/hooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.status));
      }),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    await waitFor(() => ids.every((id) => doneIds(instances).includes(id)), { timeoutMs: 60_000, what: `${EVENTS} events processed` });
    await new Promise((r) => setTimeout(r, 1_500)); // a sweep and more: nothing runs again
    const counts = countBy(doneIds(instances));
    expect(ids.filter((id) => counts.get(id) !== 1)).toEqual([]);
    expect(instances.flatMap((p) => p.lines.filter((l) => l.startsWith('ERROR ')))).toEqual([]);
    console.log(
      `peer matrix, ${label}: bullmq ${wanted.bullmq} + ioredis ${wanted.ioredis}, ${INSTANCES} instances, ${EVENTS} events x ${INSTANCES} deliveries: each processed once`,
    );
    await Promise.all(instances.map((p) => p.kill()));
  });
});
