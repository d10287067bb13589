// Spectral function of spec/.spectral.yaml (rule behaviour-policies-consistent): the retry and
// delivery policies of the contract agree with themselves and with the rest of the document.
// Their shapes are checked by the rules' JSON schemas; this checks what a schema cannot say.

const RESUME = ['paths', '/v1/sessions/{session_id}/resume', 'post', 'x-retry-policy'];
const DELIVERY = ['webhooks', 'sessionEvent', 'post', 'x-delivery-policy'];

const at = (doc, path) => path.reduce((node, key) => (node && typeof node === 'object' ? node[key] : undefined), doc);

function retryProblems(policy, doc) {
  const problems = [];
  const say = (message, ...path) => problems.push({ message, path: [...RESUME, ...path] });
  const { retryableStatuses, neverRetried, retryAfter, attempts, backoff, outcomes, idempotencyKey } = policy;
  const classDigit = Number(String(neverRetried.statusClass)[0]);
  for (const status of retryableStatuses) {
    if (Math.floor(status / 100) === classDigit && !neverRetried.except.includes(status)) {
      say(
        `retryableStatuses lists ${status}, a ${neverRetried.statusClass} status that is never retried (only ${neverRetried.except.join(', ')} is).`,
        'retryableStatuses',
      );
    }
  }
  if (retryableStatuses.includes(outcomes.notPaused.status) || outcomes.notPaused.retried) {
    say(`not_paused (${outcomes.notPaused.status}) is an outcome, never retried.`, 'outcomes', 'notPaused');
  }
  for (const status of retryAfter.statuses) {
    if (!retryableStatuses.includes(status))
      say(`retryAfter.statuses lists ${status}, which is not retried: a Retry-After on it is never waited for.`, 'retryAfter', 'statuses');
  }
  if (retryAfter.maxMs < backoff.baseMs)
    say(`retryAfter.maxMs (${retryAfter.maxMs}) is below backoff.baseMs (${backoff.baseMs}): the cap must be at least the first wait.`, 'retryAfter', 'maxMs');
  if (backoff.maxMs < backoff.baseMs) say(`backoff.maxMs (${backoff.maxMs}) is below backoff.baseMs (${backoff.baseMs}).`, 'backoff', 'maxMs');
  const longestWait = Math.max(retryAfter.maxMs, backoff.maxMs);
  const worst = attempts.max * attempts.attemptTimeoutMs + (attempts.max - 1) * longestWait;
  if (attempts.maxTotalMs < worst) {
    say(
      `attempts.maxTotalMs (${attempts.maxTotalMs}) is below the worst case of the other bounds: ${attempts.max} attempts of ${attempts.attemptTimeoutMs} ms and ${attempts.max - 1} waits of ${longestWait} ms make ${worst} ms.`,
      'attempts',
      'maxTotalMs',
    );
  }
  const parameter = at(doc, ['components', 'parameters', 'IdempotencyKey']);
  if (!parameter || String(parameter.name).toLowerCase() !== String(idempotencyKey.header).toLowerCase()) {
    say(`idempotencyKey.header (${idempotencyKey.header}) is not the name of components.parameters.IdempotencyKey.`, 'idempotencyKey', 'header');
  }
  return problems;
}

function deliveryProblems(policy) {
  const problems = [];
  const say = (message, ...path) => problems.push({ message, path: [...DELIVERY, ...path] });
  const { deliveredStatuses, retry, retryAfter, dedupe, signature } = policy;
  for (const status of deliveredStatuses) if (status < 200 || status > 299) say(`deliveredStatuses lists ${status}, which is not a 2xx.`, 'deliveredStatuses');
  for (const status of retry.endsEventStatuses) {
    if (deliveredStatuses.includes(status) || retryAfter.statuses.includes(status))
      say(`${status} both ends the event and is delivered or retried.`, 'retry', 'endsEventStatuses');
  }
  retry.scheduleMs.forEach((ms, i) => {
    if (i > 0 && ms < retry.scheduleMs[i - 1]) say(`retry.scheduleMs must not shrink: ${ms} follows ${retry.scheduleMs[i - 1]}.`, 'retry', 'scheduleMs', i);
  });
  const health = policy.endpointHealth;
  if (health && health.maxProbeIntervalMs < health.minProbeIntervalMs) {
    say(
      `endpointHealth.maxProbeIntervalMs (${health.maxProbeIntervalMs}) is below minProbeIntervalMs (${health.minProbeIntervalMs}).`,
      'endpointHealth',
      'maxProbeIntervalMs',
    );
  }
  // The first probe goes no later than the schedule's next step would have retried the failed events.
  if (health && retry.scheduleMs.length > 1 && health.firstProbeAfterMs > retry.scheduleMs[1]) {
    say(
      `endpointHealth.firstProbeAfterMs (${health.firstProbeAfterMs}) is later than the schedule's second step (${retry.scheduleMs[1]}).`,
      'endpointHealth',
      'firstProbeAfterMs',
    );
  }
  if (health && health.drainMaxWindow < health.drainFirstWindow) {
    say(`endpointHealth.drainMaxWindow (${health.drainMaxWindow}) is below drainFirstWindow (${health.drainFirstWindow}).`, 'endpointHealth', 'drainMaxWindow');
  }
  if (dedupe.windowMs < signature.toleranceMs) {
    say(
      `dedupe.windowMs (${dedupe.windowMs}) is shorter than signature.toleranceMs (${signature.toleranceMs}): a signed delivery replayed while its timestamp is accepted would not be a duplicate.`,
      'dedupe',
      'windowMs',
    );
  }
  return problems;
}

function decisionProblems(policy, path, decisionIds) {
  return policy.decisions
    .map((id, i) =>
      decisionIds.has(id) ? undefined : { message: `decisions lists "${id}", which is not an x-decisions id.`, path: [...path, 'decisions', i] },
    )
    .filter(Boolean);
}

export default (doc) => {
  const resume = at(doc, RESUME);
  const delivery = at(doc, DELIVERY);
  // Absent or malformed policies are reported by the shape rules; nothing to compare then.
  if (!resume?.retryAfter || !delivery?.retryAfter) return [];
  const decisionIds = new Set((doc['x-decisions'] ?? []).map((d) => d.id));
  try {
    return [
      ...retryProblems(resume, doc),
      ...deliveryProblems(delivery),
      ...decisionProblems(resume, RESUME, decisionIds),
      ...decisionProblems(delivery, DELIVERY, decisionIds),
    ];
  } catch (error) {
    return [{ message: `the behaviour policies cannot be compared (${error.message}); fix their shape first.` }];
  }
};
