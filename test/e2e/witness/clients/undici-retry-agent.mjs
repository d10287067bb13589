// A client written with undici's RetryAgent, as its documentation shows it: POST made retryable
// (methods), 2 retries, the policy's statuses, waits from 250 ms doubling up to 10 s, and a 10 s
// deadline for the answer's headers. `keyed` as the first argument adds a new Idempotency-Key
// per call.
import { randomUUID } from 'node:crypto';
import { Agent, RetryAgent, request } from 'undici';

const dispatcher = new RetryAgent(new Agent({ headersTimeout: 10_000, bodyTimeout: 10_000 }), {
  maxRetries: 2,
  methods: ['POST'],
  statusCodes: [429, 500, 502, 503, 504],
  minTimeout: 250,
  timeoutFactor: 2,
  maxTimeout: 10_000,
});
const keyed = process.argv[2] === 'keyed';
const { SESSION_RESUME_BASE_URL: base, SESSION_RESUME_API_KEY: apiKey, SESSION_RESUME_SESSION_IDS: ids } = process.env;
for (const id of ids.split(' ')) {
  const headers = { authorization: `Bearer ${apiKey}`, ...(keyed ? { 'idempotency-key': randomUUID() } : {}) };
  try {
    const response = await request(`${base}/v1/sessions/${encodeURIComponent(id)}/resume`, { method: 'POST', headers, dispatcher });
    await response.body.text();
    console.log(id, response.statusCode);
  } catch (error) {
    console.log(id, error.code ?? error.name);
  }
}
await dispatcher.close();
