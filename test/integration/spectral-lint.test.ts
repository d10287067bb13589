/**
 * Spectral with the OWASP ruleset through spec/.spectral.yaml (`npm run lint:spectral`): the
 * spec has no finding at all, and the exceptions are for their locations only: the same
 * problems elsewhere are still reported.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
