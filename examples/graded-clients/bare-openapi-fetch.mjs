// A client generated from spec/openapi.yaml with openapi-fetch and nothing added: one request
// per resume, no retries, no Idempotency-Key, no deadline.
import createClient from 'openapi-fetch';

const client = createClient({ baseUrl: process.env.SESSION_RESUME_BASE_URL, headers: { Authorization: `Bearer ${process.env.SESSION_RESUME_API_KEY}` } });
for (const id of process.env.SESSION_RESUME_SESSION_IDS.split(' ')) {
  try {
    const { response } = await client.POST('/v1/sessions/{session_id}/resume', { params: { path: { session_id: id } } });
    console.log(`${id}: HTTP ${response.status}`);
  } catch (error) {
    console.log(`${id}: ${error.cause?.code ?? error.message}`);
  }
}
