// The typed client of this toolkit, as `client grade --run` runs it: one resume per id of
// SESSION_RESUME_SESSION_IDS, in order, with the client's defaults (retries, one Idempotency-Key
// per call, Retry-After honoured up to its cap, a deadline per attempt).
import { createSessionsClient } from 'session-resume-api/client';

const client = createSessionsClient({ baseUrl: process.env.SESSION_RESUME_BASE_URL, apiKey: process.env.SESSION_RESUME_API_KEY });
for (const id of process.env.SESSION_RESUME_SESSION_IDS.split(' ')) {
  try {
    const outcome = await client.resume(id);
    console.log(`${id}: ${outcome.kind} after ${outcome.attempts} attempt(s)`);
  } catch (error) {
    // No answer (network, timeout): reported, and the next id is resumed.
    console.log(`${id}: ${error.code}: ${error.message}`);
  }
}
