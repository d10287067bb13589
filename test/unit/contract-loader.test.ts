/** loadContract fails at load time, naming the file and the problem, for every kind of broken spec. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContractError, loadContract, specPath } from '@session-resume-api/runtime/contract';

const dir = mkdtempSync(join(tmpdir(), 'contract-'));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const original = readFileSync(specPath, 'utf8');

describe('loadContract', () => {
  it('loads the shipped spec and freezes the document', () => {
    const c = loadContract();
    expect(c.document.info.title).toBe('Session Resume API');
    expect(Object.isFrozen(c.document.components.schemas)).toBe(true);
  });

  it.each([
    ['missing.yaml', null, /missing\.yaml cannot be read/],
    ['bad.yaml', 'openapi: 3.1.0\npaths: [unclosed', /bad\.yaml is not valid YAML/],
    ['v30.yaml', original.replace('openapi: 3.1.0', 'openapi: 3.0.3'), /is not an OpenAPI 3\.1 document \(openapi: 3\.0\.3\)/],
    ['nopaths.yaml', 'openapi: 3.1.0\ninfo: {title: t, version: "1"}\ncomponents: {schemas: {}}\n', /has no paths/],
    [
      'badschema.yaml',
      original.replace('    ResumeRequest:\n      type: object', '    ResumeRequest:\n      type: objekt'),
      /has invalid component schemas|has an invalid schema components\.schemas\.ResumeRequest/,
    ],
    [
      'danglingref.yaml',
      original.replace('$ref: "#/components/schemas/SessionRef"', '$ref: "#/components/schemas/Nope"'),
      /has an invalid schema components\.schemas\.SessionEvent: can't resolve reference/,
    ],
  ])('%s → ContractError', (name, text, message) => {
    const path = text === null ? join(dir, name) : write(name, text);
    let error: unknown;
    try {
      loadContract(path);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ContractError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain(path);
  });

  it('lazy: a dangling reference surfaces at the first use of that schema, not at load', () => {
    const path = write('lazy.yaml', original.replace('$ref: "#/components/schemas/SessionRef"', '$ref: "#/components/schemas/Nope"'));
    const lazy = loadContract(path, { lazy: true });
    expect(lazy.validate('ResumeResult', { success: true, message: 'ok' }).ok).toBe(true);
    expect(() => lazy.validate('SessionEvent', {})).toThrow(/has an invalid schema components\.schemas\.SessionEvent/);
  });

  it('reads the JSON twin the build writes beside a YAML document', () => {
    const yaml = write('twin.yaml', 'not: [valid');
    write('twin.json', JSON.stringify({ ...JSON.parse(JSON.stringify(loadContract().document)), info: { title: 'From JSON', version: '1' } }));
    expect(loadContract(yaml, { lazy: true }).document.info.title).toBe('From JSON');
  });
});
