/**
 * Spectral with the OWASP ruleset through spec/.spectral.yaml (`npm run lint:spectral`): the
 * spec has no finding at all, and the exceptions are for their locations only: the same
 * problems elsewhere are still reported.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';

const root = fileURLToPath(new URL('../..', import.meta.url));
const spectral = join(root, 'node_modules/.bin/spectral');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

interface Finding {
  code: string;
  path: string[];
  severity: number;
}

/** Lints `spec` (a parsed document) with the project's ruleset; returns the findings. */
function lint(spec?: unknown): Finding[] {
  const dir = mkdtempSync(join(tmpdir(), 'spectral-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'spec'));
  // The ruleset's overrides name `openapi.yaml` next to it, so the copy keeps the layout.
  copyFileSync(join(root, 'spec/.spectral.yaml'), join(dir, 'spec/.spectral.yaml'));
  cpSync(join(root, 'spec/functions'), join(dir, 'spec/functions'), { recursive: true });
  // The ruleset extends an npm package, resolved from the copy's node_modules.
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const text = spec === undefined ? readFileSync(join(root, 'spec/openapi.yaml'), 'utf8') : stringify(spec);
  writeFileSync(join(dir, 'spec/openapi.yaml'), text);
  const result = spawnSync(spectral, ['lint', '--ruleset', 'spec/.spectral.yaml', '--format', 'json', '--quiet', 'spec/openapi.yaml'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
  });
  // Spectral exits 0 (nothing found) or 1 (findings); anything else, or no JSON, is a broken run.
  expect(result.stderr).not.toMatch(/Error running Spectral/);
  expect([0, 1]).toContain(result.status);
  return JSON.parse(result.stdout) as Finding[];
}

const original = parse(readFileSync(join(root, 'spec/openapi.yaml'), 'utf8'));

describe('Spectral + OWASP on spec/openapi.yaml', () => {
  it('reports nothing: no error, no warning, no hint', () => {
    expect(lint().map((f) => `${f.code} at ${f.path.join('.')}`)).toEqual([]);
  });

  it('still reports a missing bound, a plain-HTTP production server and an answer without rate-limit fields', () => {
    const spec = structuredClone(original);
    delete spec.components.schemas.Error.properties.error.maxLength;
    delete spec.components.schemas.SessionEvent.properties.timestamp.maxLength;
    spec.servers[0].url = 'http://{base_url}';
    delete spec.paths['/v1/sessions/{session_id}/resume'].post.responses['404'].headers.RateLimit;
    const found = lint(spec).map((f) => `${f.code} at ${f.path.join('.')}`);
    expect(found).toEqual(
      expect.arrayContaining([
        'owasp:api4:2023-string-limit at components.schemas.Error.properties.error',
        'owasp:api4:2023-string-limit at components.schemas.SessionEvent.properties.timestamp',
        'owasp:api8:2023-no-server-http at servers.0.url',
        'owasp:api4:2023-rate-limit at paths./v1/sessions/{session_id}/resume.post.responses.404.headers',
      ]),
    );
    expect(found, found.join('\n')).toHaveLength(4);
  });
});

describe('the behaviour rules (x-retry-policy, x-delivery-policy)', () => {
  const RESUME = ['paths', '/v1/sessions/{session_id}/resume', 'post', 'x-retry-policy'];
  const DELIVERY = ['webhooks', 'sessionEvent', 'post', 'x-delivery-policy'];

  it('report a malformed field and policies at odds with themselves', () => {
    const spec = structuredClone(original);
    const retry = spec.paths['/v1/sessions/{session_id}/resume'].post['x-retry-policy'];
    retry.retryableStatuses = [400, 429, 503];
    retry.retryAfter.aboveMax = 'sometimes';
    retry.attempts.maxTotalMs = 1;
    retry.retryAfter.maxMs = 1;
    retry.decisions = ['no-such-decision'];
    const delivery = spec.webhooks.sessionEvent.post['x-delivery-policy'];
    delivery.dedupe.windowMs = 1000;
    delivery.retry.scheduleMs = [0, 5000, 1000];
    const found = lint(spec).map((f) => `${f.code} at ${f.path.join('.')}`);
    expect(found).toEqual(
      expect.arrayContaining([
        `behaviour-policies-consistent at ${[...RESUME, 'retryableStatuses'].join('.')}`,
        `x-retry-policy-shape at ${[...RESUME, 'retryAfter', 'aboveMax'].join('.')}`,
        `behaviour-policies-consistent at ${[...RESUME, 'attempts', 'maxTotalMs'].join('.')}`,
        `behaviour-policies-consistent at ${[...RESUME, 'retryAfter', 'maxMs'].join('.')}`,
        `behaviour-policies-consistent at ${[...RESUME, 'decisions', '0'].join('.')}`,
        `behaviour-policies-consistent at ${[...DELIVERY, 'dedupe', 'windowMs'].join('.')}`,
        `behaviour-policies-consistent at ${[...DELIVERY, 'retry', 'scheduleMs', '2'].join('.')}`,
      ]),
    );
  });

  it('report a policy that is absent', () => {
    const spec = structuredClone(original);
    delete spec.webhooks.sessionEvent.post['x-delivery-policy'];
    expect(lint(spec).map((f) => f.code)).toContain('x-delivery-policy-shape');
  });
});
