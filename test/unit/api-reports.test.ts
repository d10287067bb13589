/**
 * Every type a public signature uses can be named from the entry that uses it: no API report
 * (api/*.api.md, which `npm run api:check` keeps equal to the build) lists a forgotten export.
 * A new one is exported as a type from that entry, or the signature stops using it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const api = fileURLToPath(new URL('../../api', import.meta.url));

/** The symbols a report says users meet but cannot import, as `report: symbol`. */
function forgotten(name: string, text: string): string[] {
  return [...text.matchAll(/\(ae-forgotten-export\) The symbol "([^"]+)"/g)].map((m) => `${name}: ${m[1]}`);
}

describe('API reports', () => {
  it('list no forgotten export', () => {
    const reports = readdirSync(api).filter((f) => f.endsWith('.api.md'));
    expect(reports.length).toBeGreaterThanOrEqual(8);
    expect(reports.flatMap((f) => forgotten(f, readFileSync(join(api, f), 'utf8')))).toEqual([]);
  });

  it('the check sees one (so it can fail)', () => {
    const line = '// dist/types/runtime/tracing.d.ts:50:9 - (ae-forgotten-export) The symbol "OtelTracer" needs to be exported by the entry point index.d.ts';
    expect(forgotten('server.api.md', `x\n${line}\n`)).toEqual(['server.api.md: OtelTracer']);
  });
});
