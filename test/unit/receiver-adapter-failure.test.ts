/**
 * A failure inside the receiver's adapters is answered 503 (the sender retries) and logged
 * through the receiver's logger first: never answered in silence.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../client/webhooks/node-handler.js';
import { createFetchHandler } from '../../client/webhooks/web-handler.js';

const failure = new Error('the store threw past its own checks');
const failing = async () => {
  throw failure;
};

function recordingLogger() {
  const lines: { obj: object; msg: string | undefined }[] = [];
  return { lines, logger: { error: (obj: object, msg?: string) => lines.push({ obj, msg }) } };
}

describe('receiver adapters log before a 503', () => {
  it('web: receive throws → 503, and the error reaches the logger', async () => {
    const { lines, logger } = recordingLogger();
    const fetch = createFetchHandler({ receive: failing, urlToken: undefined, maxBodyBytes: 1000, logger });
    const response = await fetch(new Request('https://receiver.test/hooks', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }));
    expect(response.status).toBe(503);
    expect(lines).toEqual([{ obj: { err: failure }, msg: 'webhook receiver failed; answered 503 so that the sender retries' }]);
  });

  it('web: a body stream that fails → 503, logged', async () => {
    const { lines, logger } = recordingLogger();
    const fetch = createFetchHandler({ receive: failing, urlToken: undefined, maxBodyBytes: 1000, logger });
    const broken = new ReadableStream({ pull: (controller) => controller.error(new Error('client went away')) });
    const response = await fetch(new Request('https://receiver.test/hooks', { method: 'POST', body: broken, duplex: 'half' } as RequestInit));
    expect(response.status).toBe(503);
    expect((lines[0]?.obj as { err: Error }).err.message).toBe('client went away');
  });

  it('node: receive throws → 503, and the error reaches the logger', async () => {
    const { lines, logger } = recordingLogger();
    const handler = createNodeHandler({ receive: failing, urlToken: undefined, maxBodyBytes: 1000, logger });
    // An express request whose body a parser already read: the adapter reads no stream.
    const req = { method: 'POST', url: '/hooks', headers: {}, body: Buffer.from('{}'), readableEnded: true } as unknown as IncomingMessage;
    const answered = new Promise<number>((resolve) => {
      const res = { headersSent: false, writeHead: (status: number) => (resolve(status), res), end: () => res };
      handler(req, res as unknown as ServerResponse);
    });
    expect(await answered).toBe(503);
    expect(lines).toEqual([{ obj: { err: failure }, msg: 'webhook receiver failed; answered 503 so that the sender retries' }]);
  });
});
