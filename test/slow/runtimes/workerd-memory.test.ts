/**
 * The packed package on Cloudflare Workers (workerd through miniflare) with the memory store,
 * the receiver created at module scope as on every other runtime: bundled with wrangler's
 * settings from a project holding nothing but the package, the Worker starts, and `onEvent` is
 * observed to run, with `ctx.waitUntil` and without it (workerd cancels a request's
 * timers once its Response is returned: without a context the answer waits for the handling).
 */
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/wait-for.js';
import { bundle, receiverProject, signed, newSecret, type ReceiverProject } from './runtime-kit.js';

/** Made the usual way: the receiver created at module scope, where workerd refuses timers and random values. */
const WORKER = `import { env } from 'cloudflare:workers';
import { createMemoryEventStore, createWebhookReceiver } from 'session-resume-api/webhooks';

const receiver = createWebhookReceiver({
  store: createMemoryEventStore(),
  secret: env.WEBHOOK_SECRET,
  onEvent: (event, { sessionId, attempt }) => {
    console.log('session event', event.event, sessionId, 'attempt', attempt);
    if (sessionId.startsWith('sess_flaky') && attempt === 1) throw new Error('the first attempt fails');
  },
  retryDelayMs: 50,
  logger: false,
});

export default {
  fetch(request, _env, ctx) {
    return new URL(request.url).pathname === '/without-context' ? receiver.fetch(request) : receiver.fetch(request, ctx);
  },
};
`;

describe('workerd (miniflare): the memory store', () => {
  let project: ReceiverProject;
  let mf: Miniflare;
  const lines: string[] = [];
  const secret = newSecret();

  beforeAll(async () => {
    project = await receiverProject('workerd-memory', { 'worker.js': WORKER });
    const code = await bundle(project.dir, 'worker.js', 'workerd');
    mf = new Miniflare({
      modules: [{ type: 'ESModule', path: 'worker.js', contents: code }],
      compatibilityDate: '2025-09-01',
      bindings: { WEBHOOK_SECRET: secret },
      handleStructuredLogs: ({ message }: { message: string }) => void lines.push(message),
    });
    await mf.ready;
  }, 240_000);

  afterAll(async () => {
    await mf?.dispose();
    project?.remove();
  });

  const deliver = async (path: string, sessionId: string) => {
    const body = JSON.stringify({ event: 'session.resumed', session: { id: sessionId }, timestamp: new Date().toISOString() });
    return mf.dispatchFetch(`http://receiver.example${path}`, { method: 'POST', headers: signed(secret, `msg_${sessionId}`, body), body });
  };
  const runs = (sessionId: string) => lines.filter((l) => l.includes(`session event session.resumed ${sessionId} `)).length;

  it('runs onEvent after the answer through ctx.waitUntil, retries included', async () => {
    const answer = await deliver('/with-context', 'sess_ctx');
    expect(await answer.json()).toMatchObject({ received: true, duplicate: false });
    await waitFor(() => runs('sess_ctx') === 1, { what: 'onEvent on workerd', timeoutMs: 10_000 });

    await deliver('/with-context', 'sess_flaky_ctx');
    await waitFor(() => runs('sess_flaky_ctx') === 2, { what: 'the retry on workerd', timeoutMs: 10_000 });
  });

  it('without a context, answers 200 only once onEvent ran', async () => {
    // workerd's console lines reach this process through miniflare's log pipe, possibly just after
    // the answer: wait for the line, then hold the count exact.
    const answer = await deliver('/without-context', 'sess_plain');
    expect(answer.status).toBe(200);
    await waitFor(() => runs('sess_plain') >= 1, { what: "onEvent's line", timeoutMs: 5_000 });
    expect(runs('sess_plain')).toBe(1);

    const flaky = await deliver('/without-context', 'sess_flaky_plain');
    expect(flaky.status).toBe(200);
    await waitFor(() => runs('sess_flaky_plain') >= 2, { what: "the retried onEvent's line", timeoutMs: 5_000 });
    expect(runs('sess_flaky_plain')).toBe(2);
  });
});
