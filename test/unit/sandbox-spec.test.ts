/** spec/sandbox.yaml: a complete decision record (cited ids exist, in the code and the docs too) and config rules of --sandbox. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { parse } from 'yaml';
import { loadConfig } from '../../server/config.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const doc = parse(readFileSync(join(root, 'spec/sandbox.yaml'), 'utf8')) as Record<string, unknown>;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('spec/sandbox.yaml decisions', () => {
  const decisions = doc['x-decisions'] as Record<string, string>[];
  const ids = new Set(decisions.map((d) => d.id));

  it('records each decision with what the source says, what we chose and the client tolerance', () => {
    expect(decisions.length).toBeGreaterThanOrEqual(3);
    expect(ids.size).toBe(decisions.length);
    for (const d of decisions) {
      for (const field of ['id', 'topic', 'source', 'chosen', 'client-tolerance']) {
        expect(typeof d[field] === 'string' && d[field]!.length > 0, `${d.id}.${field}`).toBe(true);
      }
    }
  });

  it('every sandbox decision the code or the docs cite exists', () => {
    const docs = [
      'README.md',
      ...readdirSync(join(root, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const texts = [...docs, ...files(join(root, 'server/sandbox'))].map((f) => readFileSync(f.startsWith('/') ? f : join(root, f), 'utf8'));
    // "x-decisions: sandbox-prefer" or "x-decisions in spec/sandbox.yaml: sandbox-world-limit".
    const cited = [...texts.join('\n').matchAll(/x-decisions[^:\n]*: (sandbox-[a-z-]*[a-z])/g)].map((m) => m[1]);
    expect(new Set(cited).size).toBeGreaterThanOrEqual(3);
    for (const id of cited) expect(ids.has(id), id).toBe(true);
  });
});

describe('loadConfig with --sandbox', () => {
  it('opens CORS to any origin unless CORS_ORIGINS is set, and only in sandbox mode', () => {
    expect(loadConfig({}, { sandbox: true })).toMatchObject({ sandbox: true, corsOrigins: ['*'] });
    expect(loadConfig({ CORS_ORIGINS: 'http://a.test' }, { sandbox: true }).corsOrigins).toEqual(['http://a.test']);
    expect(loadConfig({})).toMatchObject({ sandbox: false, corsOrigins: [] });
  });

  it('accepts an http:// loopback WEBHOOK_URL in sandbox mode only, and refuses REDIS_URL there', () => {
    expect(loadConfig({ WEBHOOK_URL: 'http://localhost:8080/h' }, { sandbox: true }).webhook?.url).toBe('http://localhost:8080/h');
    expect(() => loadConfig({ WEBHOOK_URL: 'http://localhost:8080/h' })).toThrow(OptionsError);
    expect(() => loadConfig({ WEBHOOK_URL: 'http://10.1.2.3/h' }, { sandbox: true })).toThrow(/WEBHOOK_URL is refused/);
    expect(() => loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }, { sandbox: true })).toThrow(/unset REDIS_URL/);
  });
});
