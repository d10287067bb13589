/**
 * Runs several middlewares as one router layer. Express 5's router spends a few
 * microseconds on every layer a request passes (path match, params, async wrapping), and
 * the resume path crossed about ten of them; composed, it crosses one (server/app.ts).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * One middleware that calls `handlers` in order, each `next()` moving to the following one.
 * An error (thrown, rejected, or passed to `next`) skips the rest and goes to express's
 * error handling, as it would between separate layers; `next('route')`/`next('router')` are
 * not supported (no handler here uses them).
 *
 * @example app.use(composeMiddleware([parseJsonBody(), ...validator, raiseBodyError]));
 */
export function composeMiddleware(handlers: readonly RequestHandler[]): RequestHandler {
  const list = [...handlers];
  return (req: Request, res: Response, done: NextFunction) => {
    let index = 0;
    const next = (err?: unknown): void => {
      if (err !== undefined && err !== null) return done(err);
      const handler = list[index++];
      if (!handler) return done();
      try {
        const result: unknown = handler(req, res, next);
        // Express 5 forwards a rejected promise of a handler to the error handler; so does this.
        if (result instanceof Promise) result.catch(done);
      } catch (error) {
        done(error);
      }
    };
    next();
  };
}
