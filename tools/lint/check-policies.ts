/**
 * The behaviour policies' consistency check of `npm run lint:spec`: prints each invariant between
 * x-retry-policy and x-delivery-policy with the numbers it compared (policy-invariants.ts), and
 * each number the decisions' prose must say as the policies do (decision-numbers.ts); exits 1
 * when one fails.
 *
 * Usage: tsx tools/lint/check-policies.ts [spec]   (default spec/openapi.yaml)
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { checkDecisionNumbers, type ClaimedDeliveryFields, type ClaimedRetryFields, type DecisionText } from './decision-numbers.js';
import { checkPolicyInvariants } from './policy-invariants.js';

interface SpecDocument {
  paths?: Record<string, { post?: { 'x-retry-policy'?: ClaimedRetryFields } }>;
  webhooks?: Record<string, { post?: { 'x-delivery-policy'?: ClaimedDeliveryFields } }>;
  'x-decisions'?: DecisionText[];
}

function main(): void {
  const specFile = process.argv[2] ?? 'spec/openapi.yaml';
  const document = parse(readFileSync(specFile, 'utf8')) as SpecDocument;
  const retry = document.paths?.['/v1/sessions/{session_id}/resume']?.post?.['x-retry-policy'];
  const delivery = document.webhooks?.['sessionEvent']?.post?.['x-delivery-policy'];
  if (!retry || !delivery) {
    console.error(`${specFile}: the resume operation's x-retry-policy or the sessionEvent webhook's x-delivery-policy is missing.`);
    process.exitCode = 1;
    return;
  }
  const decisions = document['x-decisions'] ?? [];
  const results = [...checkPolicyInvariants(retry, delivery, new Set(decisions.map((d) => d.id))), ...checkDecisionNumbers(retry, delivery, decisions)];
  for (const result of results) console.log(`${result.holds ? '✓' : '✗'} ${result.id}: ${result.text}`);
  const failed = results.filter((r) => !r.holds);
  if (failed.length > 0) {
    console.error(`${specFile}: ${failed.length} of ${results.length} behaviour invariants fail (${failed.map((r) => r.id).join(', ')}).`);
    process.exitCode = 1;
  }
}

main();
