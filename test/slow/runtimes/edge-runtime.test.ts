/**
 * The packed package in Vercel's edge-runtime (the runtime of Vercel Edge Functions, from npm;
 * Next.js's Edge runtime adds throwing stubs of Node's globals to it and has a suite of its own,
 * nextjs.test.ts): the Edge Function of docs/receiver.md as written, bundled
 * for the browser platform from a project holding only the package, called with the request's
 * FetchEvent as its context (its `waitUntil`). Without a context the answer waits for `onEvent`.
 */
import { EdgeRuntime, runServer } from 'edge-runtime';
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

/**
 * Vercel's part: each fetch event goes to the function's default export, the event as its
 * context (none under /no-context/, where the line "answered" marks when the response was made).
 */
const PLATFORM = `
addEventListener('fetch', (event) => {
  if (!new URL(event.request.url).pathname.startsWith('/no-context/')) return event.respondWith(edgeFunction.default(event.request, event));
  event.respondWith(edgeFunction.default(event.request).then((response) => (console.log('answered'), response)));
});`;

describe('edge-runtime (Vercel Edge): the memory store', () => {
  let project: ReceiverProject;
  let server: Awaited<ReturnType<typeof runServer>>;
  const lines: string[] = [];
  const settings = receiverSettings();
  const target: RuntimeTarget = { output: () => lines.join('\n'), post: (path, init) => fetch(`${server.url.replace(/\/$/, '')}${path}`, init) };

  beforeAll(async () => {
    project = await receiverProject('edge-runtime', { 'edge.ts': docFile('edge.ts') });
    const code = await bundle(project.dir, 'edge.ts', 'edge');
    const env = receiverEnv(settings);
    const runtime = new EdgeRuntime({
      initialCode: `${code}\n${PLATFORM}`,
      // Vercel gives Edge Functions process.env; the function's output lines are what the test observes.
      extend: (context) => Object.assign(context, { process: { env }, console: { ...console, log: (...a: unknown[]) => lines.push(a.join(' ')) } }),
    });
    server = await runServer({ runtime, port: 0, host: '127.0.0.1' });
  }, 240_000);

  afterAll(async () => {
    await server?.close();
    project?.remove();
  });

  it('answers every documented case and runs onEvent once per event, through the event context', { timeout: 60_000 }, async () => {
    await expectReceiverCases(target, settings, 'edge');
  });

  it('without a context, answers 200 only once onEvent ran', async () => {
    const sessionId = 'sess_edge_no_context';
    const body = JSON.stringify({ event: 'session.resumed', session: { id: sessionId }, timestamp: new Date().toISOString() });
    const answer = await target.post(`/no-context/webhooks/session-events/${settings.token}`, {
      method: 'POST',
      headers: signed(settings.secrets[0], `msg_${sessionId}`, body),
      body,
    });
    expect(answer.status).toBe(200);
    expect(handledCount(target, sessionId)).toBe(1);
    // onEvent ran before the response was made, not merely before the test looked.
    expect(lines.findIndex((l) => l.includes(sessionId))).toBeLessThan(lines.indexOf('answered'));
  });
});
