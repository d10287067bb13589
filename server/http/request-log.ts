/**
 * Access log and request id, in place of pino-http, which builds a child logger per request
 * whether it logs or not (about 7 % of the resume path's CPU, BENCHMARKS.md).
 */
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { redactUrl } from '@session-resume-api/runtime/redact-url';

const GIVEN_ID = /^[\w.-]{1,128}$/;

/** The id given to the request (X-Request-Id), set by `createRequestLog`. */
export function requestIdOf(res: Response): string | undefined {
  return (res.locals as { requestId?: string }).requestId;
}

/** A logger bound to the request's id, for the rare lines written during a request (errors). */
export function requestLogger(logger: Logger, req: Request, res: Response): Logger {
  return logger.child({ reqId: requestIdOf(res), req: { method: req.method, url: redactUrl(req.originalUrl) } });
}

/**
 * Sets `X-Request-Id` (the caller's when it is 1–128 of `A-Za-z0-9_.-`) and logs one line per
 * request: `info`, `error` for a 5xx, `warn` when closed before the answer ended. Never logs headers
 * or the query string (an EventSource sends its key as `?access_token=`).
 * @example app.use(createRequestLog(pino({ level: 'info' })));
 */
export function createRequestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && GIVEN_ID.test(given) ? given : randomUUID();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    if (!logger.isLevelEnabled('info')) return next();
    const start = performance.now();
    // 'close' follows 'finish' on every answer, and comes alone when the connection closed first: one
    // listener, and `on`, not `once`: 'close' comes once, and `once` wraps the listener per request.
    const done = () => {
      const status = res.statusCode;
      const line = {
        reqId: id,
        req: { method: req.method, url: redactUrl(req.originalUrl) },
        res: { statusCode: status },
        responseTime: Math.round(performance.now() - start),
      };
      if (!res.writableFinished) logger.warn(line, 'request aborted');
      else if (status >= 500) logger.error(line, 'request failed');
      else logger.info(line, 'request completed');
    };
    res.on('close', done);
    next();
  };
}
