/**
 * The Durable Object store in workerd (miniflare): the Worker of docs/receiver.md as written,
 * bundled with wrangler's settings from a project holding only the packed package, run as two
 * Workers that share the object's namespace, and a third whose receiver is made at module scope.
 * Deliveries signed by `svix`: every
 * documented answer; one event sent to both Workers at once is recorded and handled once; a
 * recording that reaches the object after its caller gave up writes nothing; a record leaves
 * after its window.
 */
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bundle,
  docFile,
  expectReceiverCases,
  handledCount,
  receiverEnv,
  receiverProject,
  receiverSettings,
  signed,
  type ReceiverProject,
  type RuntimeTarget,
} from './runtime-kit.js';
import { waitFor } from '../../helpers/wait-for.js';

/** What miniflare's Worker and stub objects offer (typed here: the suite has no Workers types). */
interface Fetcher {
  fetch(url: string, init?: RequestInit): Promise<Response>;
}

/**
 * The same Worker with its receiver made at module scope, the bindings read from
 * `cloudflare:workers` as docs/receiver.md says one may: it shares the first Worker's object.
 */
const MODULE_SCOPE_WORKER = `import { env } from 'cloudflare:workers';
import { createWebhookReceiver } from 'session-resume-api/webhooks';
import { createDurableObjectStore } from 'session-resume-api/webhooks/cloudflare';

const receiver = createWebhookReceiver({
  store: createDurableObjectStore({ namespace: env.WEBHOOK_STORE }),
  urlToken: env.WEBHOOK_URL_TOKEN,
  secret: env.WEBHOOK_SECRET.split(','),
  onEvent: (event, { sessionId }) => console.log('session event', event.event, sessionId),
});

export default { fetch: (request, _env, ctx) => receiver.fetch(request, ctx) };
`;

describe('workerd (miniflare): the Durable Object store shared by two Workers', () => {
  let project: ReceiverProject;
  let mf: Miniflare;
  const lines: string[] = [];
  const settings = receiverSettings();
  const output = () => lines.join('\n');
  const worker = (name: 'a' | 'b' | 'module-scope'): RuntimeTarget => ({
    output,
    post: async (path, init) => ((await mf.getWorker(name)) as unknown as Fetcher).fetch(`http://receiver.example${path}`, init),
  });
  /** Calls the object directly, as the store does. */
  const object = async (body: unknown) => {
    const namespace = (await mf.getDurableObjectNamespace('WEBHOOK_STORE', 'a')) as unknown as { idFromName(name: string): unknown; get(id: unknown): Fetcher };
    const stub = namespace.get(namespace.idFromName('session-resume-api'));
    return (await stub.fetch('https://webhook-store/', { method: 'POST', body: JSON.stringify(body) })).json();
  };

  beforeAll(async () => {
    project = await receiverProject('workerd-do', { 'worker.ts': docFile('worker.ts'), 'module-scope.js': MODULE_SCOPE_WORKER });
    const code = await bundle(project.dir, 'worker.ts', 'workerd');
    const moduleScope = await bundle(project.dir, 'module-scope.js', 'workerd');
    const common = {
      modules: [{ type: 'ESModule' as const, path: 'worker.js', contents: code }],
      compatibilityDate: '2025-09-01',
      bindings: receiverEnv(settings),
    };
    mf = new Miniflare({
      handleStructuredLogs: ({ message }: { message: string }) => void lines.push(message),
      workers: [
        { name: 'a', ...common, durableObjects: { WEBHOOK_STORE: { className: 'WebhookStoreObject', useSQLite: true } } },
        { name: 'b', ...common, durableObjects: { WEBHOOK_STORE: { className: 'WebhookStoreObject', scriptName: 'a', useSQLite: true } } },
        {
          name: 'module-scope',
          ...common,
          modules: [{ type: 'ESModule' as const, path: 'worker.js', contents: moduleScope }],
          durableObjects: { WEBHOOK_STORE: { className: 'WebhookStoreObject', scriptName: 'a', useSQLite: true } },
        },
      ],
    });
    await mf.ready;
  }, 240_000);

  afterAll(async () => {
    await mf?.dispose();
    project?.remove();
  });

  it('answers every documented case and runs onEvent once per event', { timeout: 60_000 }, async () => {
    await expectReceiverCases(worker('a'), settings, 'workers');
  });

  it('one event delivered to both Workers at once: recorded once, handled once', { timeout: 60_000 }, async () => {
    const sessionId = 'sess_both_workers';
    const body = JSON.stringify({ event: 'session.resumed', session: { id: sessionId }, timestamp: new Date().toISOString() });
    const path = `/webhooks/session-events/${settings.token}`;
    // Two deliveries of one event (different webhook-ids: the sender's retry), one to each Worker.
    const answers = await Promise.all(
      (['a', 'b'] as const).map(async (name) =>
        (await worker(name).post(path, { method: 'POST', headers: signed(settings.secrets[0], `msg_${name}`, body), body })).json(),
      ),
    );
    expect(answers.map((a) => (a as { duplicate: boolean }).duplicate).sort()).toEqual([false, true]);
    await waitFor(() => handledCount(worker('a'), sessionId) === 1, { what: 'onEvent in one of the Workers' });
    // A third delivery later, to the Worker that answered the duplicate: still not handled again.
    const again = await worker('b').post(path, { method: 'POST', headers: signed(settings.secrets[1], 'msg_later', body), body });
    expect(await again.json()).toMatchObject({ duplicate: true });
    expect(handledCount(worker('a'), sessionId)).toBe(1);
  });

  it('a receiver made at module scope (bindings from cloudflare:workers) starts and handles an event once', { timeout: 60_000 }, async () => {
    const sessionId = 'sess_module_scope';
    const body = JSON.stringify({ event: 'session.resumed', session: { id: sessionId }, timestamp: new Date().toISOString() });
    const answer = await worker('module-scope').post(`/webhooks/session-events/${settings.token}`, {
      method: 'POST',
      headers: signed(settings.secrets[0], 'msg_module_scope', body),
      body,
    });
    expect(await answer.json()).toMatchObject({ received: true, duplicate: false });
    await waitFor(() => handledCount(worker('module-scope'), sessionId) === 1, { what: 'onEvent in the module-scope Worker' });
  });

  it('a recording that arrives after its caller gave up writes nothing', async () => {
    const event = { event: 'session.resumed', session: { id: 'sess_late' }, timestamp: '2026-11-28T00:00:00.000Z' };
    const late = await object({
      op: 'record',
      key: 'late-key',
      event,
      windowMs: 60_000,
      leaseMs: 60_000,
      deadline: Date.now() - 1,
      maxEvents: 100,
      sweepLimit: 0,
    });
    expect(late).toEqual({ late: true });
    const onTime = await object({
      op: 'record',
      key: 'late-key',
      event,
      windowMs: 60_000,
      leaseMs: 60_000,
      deadline: Date.now() + 60_000,
      maxEvents: 100,
      sweepLimit: 0,
    });
    expect(onTime).toMatchObject({ duplicate: false });
  });

  it('a record leaves after its dedupe window', { timeout: 30_000 }, async () => {
    const event = { event: 'session.resumed', session: { id: 'sess_window' }, timestamp: '2026-11-28T00:00:00.000Z' };
    const record = async () =>
      (await object({
        op: 'record',
        key: 'window-key',
        event,
        windowMs: 5000,
        leaseMs: 60_000,
        deadline: Date.now() + 60_000,
        maxEvents: 100,
        sweepLimit: 0,
      })) as { id: string; duplicate: boolean };
    const first = await record();
    expect(first.duplicate).toBe(false);
    await object({ op: 'finish', id: first.id, attempt: 1, ok: true });
    expect(await record()).toMatchObject({ duplicate: true, id: first.id });
    // Past the window the same key records anew (no timing asserted: polled until it does).
    await waitFor(async () => !(await record()).duplicate, { what: 'the record to leave its window', timeoutMs: 20_000, intervalMs: 500 });
  });
});
