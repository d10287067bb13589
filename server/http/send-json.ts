/**
 * JSON answers without express's `res.json`/`res.send`, which rebuild and re-parse the
 * Content-Type, check freshness and handle HEAD and 204/304 on every answer: about 5 % of the
 * resume path's CPU (bench/findings.md), for answers that are always a small JSON body to a POST.
 */
import express, { type Response } from 'express';

const plainJson = express.response.json;

/**
 * Sends `body` as `application/json; charset=utf-8` with `status`, as `res.status(status).json(body)`
 * would for a POST. When something wraps `res.json` (the validator's response check), the answer
 * goes through it, so that it is still checked.
 *
 * @example sendJson(res, 409, errorBody('not_paused', 'Session is not paused (not_paused).'));
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  if (res.json !== plainJson) {
    res.status(status).json(body);
    return;
  }
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
