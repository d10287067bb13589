/**
 * express-openapi-validator's public middleware as the server mounts it
 * (server/http/contract-validator.ts): its `bearerAuth` handler decides, so the validator no
 * longer accepts any bearer token; requests and, when on, answers are checked against the spec.
 */
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { afterAll, describe, expect, it } from 'vitest';
import { createContractValidator } from '../../../server/http/contract-validator.js';
import { contract } from '@session-resume-api/runtime/contract';
import { resumeUrl, RESUME_ROUTE } from '@session-resume-api/runtime/resume-path';
import { listen, type Listening } from '../../helpers/listen.js';

const running: Listening[] = [];
afterAll(async () => void (await Promise.all(running.map((s) => s.close()))));

/** The validator alone on the resume route, answering `answer` when it lets a request through. */
async function serve(isAuthenticated: (token: string | undefined) => boolean, answer: { status: number; body: unknown }): Promise<string> {
  const validator = createContractValidator({
    document: contract.document,
    validateApiSpec: false,
    validateResponses: true,
    isAuthenticated: (req) => isAuthenticated(req.headers.authorization),
  });
  const app = express();
  const route: RequestHandler = (_req, res) => void res.status(answer.status).json(answer.body);
  const onError: ErrorRequestHandler = (err: { status?: number }, _req, res, _next) => void res.status(err.status ?? 500).json({ status: err.status });
  app.post(RESUME_ROUTE, express.json(), ...validator, route);
  app.use(onError);
  const server = await listen(app);
  running.push(server);
  return server.url;
}

const resumedOk = { status: 200, body: { success: true, message: 'Session resumed.' } };
const call = (url: string, authorization: string) => fetch(resumeUrl(url, 'abc'), { method: 'POST', headers: { authorization } });

describe('the contract validator', () => {
  it('refuses a bearer token its handler refuses (401) and lets one it accepts through', async () => {
    const url = await serve((header) => header === 'Bearer good', resumedOk);
    expect((await call(url, 'Bearer good')).status).toBe(200);
    expect((await call(url, 'Bearer anything-else')).status).toBe(401);
  });

  it('checks the request against the spec: a session id over 256 characters is a 400', async () => {
    const url = await serve(() => true, resumedOk);
    const res = await fetch(resumeUrl(url, 'a'.repeat(257)), { method: 'POST', headers: { authorization: 'Bearer x' } });
    expect(res.status).toBe(400);
  });

  it('checks answers through res.json: one the spec does not declare becomes a 500', async () => {
    const url = await serve(() => true, { status: 200, body: { success: 'yes' } });
    expect((await call(url, 'Bearer x')).status).toBe(500);
  });
});
