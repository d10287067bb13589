/**
 * The memory-store receiver is web-platform code: esbuild bundles it for a neutral platform
 * (as for a Worker or a browser) with no Node built-in imported, and the bundle runs in a
 * context that has only web globals (no process, Buffer, require or setImmediate), where
 * `receiver.fetch` verifies, records and hands a signed delivery to `onEvent` once.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createContext, runInContext } from 'node:vm';
import { build } from 'esbuild';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait-for.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Bundles the two factories as a consumer's Worker would import them. */
async function bundle(): Promise<string> {
  const result = await build({
    stdin: { contents: "export { createMemoryEventStore, createWebhookReceiver } from 'session-resume-api/webhooks';", resolveDir: root, loader: 'ts' },
    bundle: true,
    write: false,
    platform: 'neutral',
    format: 'iife',
    globalName: 'kit',
    conditions: ['source'],
    mainFields: ['module', 'main'],
    // Built-ins stay visible in the output if anything still imports one; prom-client is the
    // optional peer loaded only with `metrics`.
    external: ['node:*', 'prom-client'],
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** Only what Workers, Deno and browsers all have. */
function webGlobals(lines: string[]) {
  return {
    Request,
    Response,
    Headers,
    ReadableStream,
    Blob,
    URL,
    TextEncoder,
    TextDecoder,
    crypto: globalThis.crypto,
    btoa,
    atob,
    performance,
    queueMicrotask,
    setTimeout,
    clearTimeout,
    setInterval,
    clearInterval,
    console: { log: (...a: unknown[]) => lines.push(a.join(' ')), error: (...a: unknown[]) => lines.push(a.join(' ')), warn: (...a: unknown[]) => lines.push(a.join(' ')) },
  };
}

describe('the memory-store receiver on a web platform', () => {
  it('bundles with no Node built-in and runs on web globals alone', { timeout: 60_000 }, async () => {
    const code = await bundle();
    expect(code).not.toMatch(/\brequire\(["']node:|from ["']node:|import\(["']node:/);

    const lines: string[] = [];
    const context = createContext(webGlobals(lines));
    runInContext(`${code}\nglobalThis.kit = kit;`, context);
    const kit = context.kit as typeof import('../../client/webhooks/index.js');
    expect(context.process).toBeUndefined();

    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const handled: string[] = [];
    let fail = true;
    const receiver = kit.createWebhookReceiver({
      store: kit.createMemoryEventStore(),
      secret,
      retryDelayMs: 10,
      onEvent: (event) => {
        handled.push(event.session?.id ?? '');
        if (fail) {
          fail = false;
          throw new Error('first attempt fails');
        }
      },
    });
    const body = JSON.stringify({ event: 'session.resumed', session: { id: 'sess_worker' }, timestamp: new Date().toISOString() });
    const at = new Date();
    const headers = { 'content-type': 'application/json', 'webhook-id': 'msg_worker', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign('msg_worker', at, body) };
    const post = () => receiver.fetch(new Request('https://worker.example/hooks', { method: 'POST', headers, body }));
    const first = await post();
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ received: true, duplicate: false });
    expect(await (await post()).json()).toMatchObject({ duplicate: true });
    expect((await receiver.fetch(new Request('https://worker.example/hooks', { method: 'POST', headers, body: body.replace('sess_worker', 'sess_other') }))).status).toBe(401);
    await waitFor(() => handled.length === 2);
    // The failed first attempt printed its one line (no logger given), then the retry succeeded.
    expect(lines).toEqual([expect.stringMatching(/handler failed.*session\.resumed.*sess_worker.*attempt 1 of 5.*first attempt fails/)]);
    await receiver.close();
  });
});
