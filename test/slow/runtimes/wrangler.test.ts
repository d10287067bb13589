/**
 * Wrangler itself on the Workers section of docs/receiver.md as written: its worker.ts and its
 * wrangler.toml copied from the page into a project holding nothing but the packed package, run
 * by two wranglers of the slow tier's runtimes (test/slow/runtimes/package.json): the current one
 * under Node 24 (it asks for Node 22 or later), and 4.86, the last release that runs on Node 20,
 * under this Node 20 (what a plain `npm install wrangler` gets there).
 * `wrangler deploy --dry-run` builds it with nothing left external but what workerd provides;
 * `wrangler dev` (local, offline, port by its documented `--port` flag, the secrets from
 * `.dev.vars` as the page says) serves it with the page's Durable Object binding and receives
 * deliveries signed by `svix`: every documented answer, each event handled once (the page's
 * `onEvent` prints a line, read from wrangler's output), and the records still there after a
 * restart.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getFreePort } from '../../helpers/free-port.js';
import { node24 } from '../../helpers/node24.js';
import { run } from '../../helpers/package-tarball.js';
import { waitFor } from '../../helpers/wait-for.js';
import {
  docFile,
  expectReceiverCases,
  handledCount,
  receiverEnv,
  receiverProject,
  receiverSettings,
  signed,
  startServer,
  writeFiles,
  type ReceiverProject,
  type ServerProcess,
} from './runtime-kit.js';

const require = createRequire(import.meta.url);
/** A wrangler's command-line entry, from the package the runtimes' manifest installs under `name`. */
const wranglerBin = (name: string): string => join(dirname(require.resolve(`${name}/package.json`)), 'bin/wrangler.js');

const WRANGLERS = [
  { label: 'wrangler (current) under Node 24', bin: wranglerBin('wrangler'), node: node24 },
  { label: 'wrangler 4.86 under Node 20', bin: wranglerBin('wrangler-node20'), node: async () => process.execPath },
];

describe.each(WRANGLERS)('$label (deploy --dry-run, dev) on the Workers section of docs/receiver.md', ({ bin: WRANGLER, node: nodeFor }) => {
  let project: ReceiverProject;
  let node: string;
  const settings = receiverSettings();
  /** Wrangler kept offline and out of the user's home: no metrics, no error reports, its files in the project. */
  const wranglerEnv = () => ({
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_SEND_ERROR_REPORTS: 'false',
    WRANGLER_LOG_PATH: join(project.dir, '.wrangler-logs'),
    WRANGLER_REGISTRY_PATH: join(project.dir, '.wrangler-registry'),
    XDG_CONFIG_HOME: join(project.dir, '.config'),
    NO_COLOR: '1',
  });
  const dev = async (): Promise<ServerProcess> => {
    const [port, inspector] = [await getFreePort(), await getFreePort()];
    const args = [WRANGLER, 'dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(inspector)];
    return startServer(node, args, project.dir, wranglerEnv(), /Ready on https?:\/\/[^\s]*?:(\d+)/, { processGroup: true });
  };

  beforeAll(async () => {
    [project, node] = await Promise.all([
      receiverProject('wrangler', { 'worker.ts': docFile('worker.ts'), 'wrangler.toml': docFile('wrangler.toml') }),
      nodeFor(),
    ]);
    // The page's secrets, where `wrangler dev` reads them.
    writeFiles(project.dir, {
      '.dev.vars': Object.entries(receiverEnv(settings))
        .map(([name, value]) => `${name}=${value}\n`)
        .join(''),
    });
  }, 600_000);
  afterAll(() => project?.remove());

  it('wrangler deploy --dry-run builds the Worker with nothing external but cloudflare: modules', { timeout: 120_000 }, async () => {
    const { stdout } = await run(node, [WRANGLER, 'deploy', '--dry-run', '--outdir', 'out'], { cwd: project.dir, env: { ...process.env, ...wranglerEnv() } });
    expect(stdout).toMatch(/env\.WEBHOOK_STORE \(WebhookStoreObject\)/);
    expect(stdout).toMatch(/--dry-run: exiting now/);
    const bundles = readdirSync(join(project.dir, 'out')).filter((file) => file.endsWith('.js'));
    expect(bundles).toEqual(['worker.js']);
    const code = readFileSync(join(project.dir, 'out/worker.js'), 'utf8');
    const imports = [...code.matchAll(/(?:^|[\s;])(?:import|export)\b[^'"`;]*?\bfrom\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)/g)].map(
      (m) => m[1] ?? m[2],
    );
    expect(imports.filter((specifier) => !specifier?.startsWith('cloudflare:'))).toEqual([]);
    expect(code).toMatch(/WebhookStoreObject/);
  });

  it(
    'wrangler dev serves it with the Durable Object store: every documented answer, each event handled once, records kept across a restart',
    { timeout: 240_000 },
    async () => {
      let server = await dev();
      const sessionId = 'sess_wrangler_restart';
      const body = JSON.stringify({ event: 'session.resumed', session: { id: sessionId }, timestamp: new Date().toISOString() });
      const path = `/webhooks/session-events/${settings.token}`;
      try {
        await expectReceiverCases(server, settings, 'wrangler');
        // What docs/receiver.md warns of: wrangler logs each request with its path, URL token included.
        expect(server.output()).toContain(`/webhooks/session-events/${settings.token}`);
        const first = await server.post(path, { method: 'POST', headers: signed(settings.secrets[0], 'msg_before_restart', body), body });
        expect(await first.json()).toMatchObject({ duplicate: false });
        await expectHandledOnce(server, sessionId);
      } finally {
        await server.stop();
      }
      // The records are the object's storage, which wrangler keeps in .wrangler/state: a
      // redelivery after a restart, under another webhook-id, is still a duplicate, not handled.
      expect(existsSync(join(project.dir, '.wrangler/state'))).toBe(true);
      server = await dev();
      try {
        const again = await server.post(path, { method: 'POST', headers: signed(settings.secrets[1], 'msg_after_restart', body), body });
        expect(await again.json()).toMatchObject({ received: true, duplicate: true });
        const fresh = `sess_wrangler_after_${Date.now()}`;
        const next = JSON.stringify({ event: 'session.resumed', session: { id: fresh }, timestamp: new Date().toISOString() });
        expect(
          await (await server.post(path, { method: 'POST', headers: signed(settings.secrets[0], `msg_${fresh}`, next), body: next })).json(),
        ).toMatchObject({ duplicate: false });
        // Handled in this run: the later event only, never the redelivered one.
        await expectHandledOnce(server, fresh);
        expect(handledCount(server, sessionId)).toBe(0);
      } finally {
        await server.stop();
      }
    },
  );
});

async function expectHandledOnce(server: ServerProcess, sessionId: string): Promise<void> {
  await waitFor(() => handledCount(server, sessionId) === 1, { what: `onEvent for ${sessionId} in wrangler's output`, timeoutMs: 20_000 });
}
