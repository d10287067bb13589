// A hand-written retry loop as it is often written: every failure retried after a fixed half
// second, up to 4 attempts, with no Idempotency-Key and no deadline.
const { SESSION_RESUME_BASE_URL: base, SESSION_RESUME_API_KEY: key, SESSION_RESUME_SESSION_IDS: ids } = process.env;
for (const id of ids.split(' ')) {
  for (let attempt = 1; ; attempt++) {
    let status;
    try {
      const response = await fetch(`${base}/v1/sessions/${encodeURIComponent(id)}/resume`, { method: 'POST', headers: { Authorization: `Bearer ${key}` } });
      status = response.status;
      await response.text();
    } catch (error) {
      status = error.cause?.code ?? 'network error';
    }
    console.log(`${id}: attempt ${attempt}: ${status}`);
    if (status === 200 || attempt === 4) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
