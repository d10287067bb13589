/**
 * Writes generated/received-session-event.js: the receiver's `ReceivedSessionEvent` check as
 * standalone code compiled by Ajv from spec/openapi.yaml (Ajv's documented standalone mode),
 * so the receiver validates without reading the document or compiling at run time: no file
 * system, no `new Function` (which Cloudflare Workers refuse), no Node built-in.
 *
 * Usage: tsx tools/generate/write-event-validator.ts [spec] [--check]
 *   --check  exit 1 when the committed file differs from what the spec gives
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { parse } from 'yaml';

const args = process.argv.slice(2);
const check = args.includes('--check');
const specFile = args.find((a) => !a.startsWith('--')) ?? 'spec/openapi.yaml';
const target = fileURLToPath(new URL('../../generated/received-session-event.js', import.meta.url));
const SCHEMA = 'ReceivedSessionEvent';
const DOCUMENT_ID = 'urn:session-resume-api:openapi';

// ajv/dist/standalone is CommonJS: under NodeNext its default import is `module.exports`, whose `default` is the function.
const standaloneCode = standaloneModule.default;
const document = parse(readFileSync(specFile, 'utf8')) as { components: { schemas: Record<string, unknown> } };
// unicode: false counts string length in UTF-16 units: the schema's only length rule is
// minLength 1 (non-empty), the same under either count, and the code then needs no Ajv runtime.
// (Ajv notes the option as deprecated; its meaning is what this file needs.)
const quiet = { log: console.log, warn: (...m: unknown[]) => String(m[0]).includes('option unicode') || console.warn(...m), error: console.error };
const ajv = new Ajv2020({ allErrors: true, strict: true, unicode: false, logger: quiet, code: { source: true, esm: true } });
ajv.addKeyword('components');
ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: document.components.schemas } });
const validate = ajv.getSchema(`${DOCUMENT_ID}#/components/schemas/${SCHEMA}`);
if (!validate) throw new Error(`${specFile} has no components.schemas.${SCHEMA}`);
const code = standaloneCode(ajv, validate);
if (/\brequire\(/.test(code)) throw new Error(`the standalone ${SCHEMA} check needs an Ajv runtime module; it must be self-contained`);
const text = `// Generated from ${specFile.replace(/^.*spec\//, 'spec/')} components.schemas.${SCHEMA} by tools/generate/write-event-validator.ts: do not edit.\n${code}\n`;

if (check) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing: differs
  }
  if (current !== text) {
    console.error(`generated/received-session-event.js is out of date with ${specFile}: run npm run generate`);
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
}
