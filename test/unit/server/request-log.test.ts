/**
 * The request log at info stays one short line per request: id, method, URL, status and time;
 * never the headers (so never the Authorization key) or the body.
 */
import { EventEmitter } from 'node:events';
import type { NextFunction, Request, Response } from 'express';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createRequestLog } from '../../../server/http/request-log.js';

function run(level: string) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const req = {
    headers: { authorization: 'Bearer secret-key', 'x-request-id': 'abc-1' },
    method: 'POST',
    originalUrl: '/v1/sessions/s/resume',
  } as unknown as Request;
  const res = Object.assign(new EventEmitter(), { statusCode: 409, writableFinished: true, locals: {}, setHeader: () => undefined }) as unknown as Response;
  let nextCalled = false;
  createRequestLog(logger)(req, res, (() => (nextCalled = true)) as NextFunction);
  // As node:http does: 'finish' once the answer is written, then 'close'.
  (res as unknown as EventEmitter).emit('finish');
  (res as unknown as EventEmitter).emit('close');
  return { lines, nextCalled };
}

describe('request log', () => {
  it('logs one short line at info, without headers or body', () => {
    const { lines, nextCalled } = run('info');
    expect(nextCalled).toBe(true);
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).toMatchObject({ msg: 'request completed', reqId: 'abc-1', req: { method: 'POST', url: '/v1/sessions/s/resume' }, res: { statusCode: 409 } });
    expect(Object.keys(line.req as object)).toEqual(['method', 'url']);
    expect(JSON.stringify(line)).not.toContain('secret-key');
    expect(JSON.stringify(line).length).toBeLessThan(300);
  });

  it('logs nothing above info', () => {
    expect(run('warn').lines).toEqual([]);
  });
});
