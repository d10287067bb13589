/**
 * Validates one HTTP answer of `resumeSession` against the operation's declared responses
 * in the spec: the status is declared, the declared headers are present (when required)
 * and match their schemas, and the body is JSON matching the declared schema.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Contract } from '@session-resume-api/runtime/contract';
import type { SchemaName } from '@session-resume-api/runtime/types';
import { resolveRef } from '@session-resume-api/runtime/resolve-ref';

/** An answer as received: status, lower-cased headers and raw body text. */
export interface ReceivedAnswer {
  status: number;
  headers: Headers;
  text: string;
}

type Node = Record<string, unknown>;

// ajv-formats is CommonJS: under NodeNext its default import is `module.exports`, whose
// `default` member is the plugin.
const addFormats = addFormatsModule.default;

/** Creates a validator of answers to `method path` of `contract.document`. */
export function createResponseCheck(contract: Contract, path: string, method: string): (answer: ReceivedAnswer) => string[] {
  const doc = contract.document;
  const operation = (doc.paths[path] as Node | undefined)?.[method] as Node | undefined;
  if (!operation) throw new Error(`spec has no ${method.toUpperCase()} ${path}`);
  const responses = operation.responses as Node;
  const ajv = new Ajv2020({ strict: false });
  // OpenAPI's integer formats (the spec bounds Retry-After as int32), from ajv-formats.
  addFormats(ajv, ['int32', 'int64']);
  const headerValidators = new Map<object, ValidateFunction>();
  const headerValidator = (schema: Node): ValidateFunction => {
    let fn = headerValidators.get(schema);
    if (!fn) headerValidators.set(schema, (fn = ajv.compile(structuredClone(schema))));
    return fn;
  };

  return (answer) => {
    const problems: string[] = [];
    const raw = responses[String(answer.status)] ?? responses.default;
    if (!raw) return [`status ${answer.status} is not declared by the spec`];
    const response = resolveRef(doc, raw) as Node;
    for (const [name, rawHeader] of Object.entries((response.headers ?? {}) as Node)) {
      const header = resolveRef(doc, rawHeader) as Node;
      const value = answer.headers.get(name);
      if (value === null) {
        if (header.required === true) problems.push(`required header ${name} is missing`);
        continue;
      }
      const schema = resolveRef(doc, header.schema) as Node;
      const typed = (schema.type === 'integer' || schema.type === 'number') && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
      if (!headerValidator(schema)(typed)) problems.push(`header ${name}: ${JSON.stringify(value)} does not match its schema`);
    }
    const media = ((response.content ?? {}) as Node)['application/json'] as Node | undefined;
    if (!media) return problems;
    const contentType = answer.headers.get('content-type') ?? '';
    if (!/^application\/json\b/i.test(contentType)) problems.push(`content-type is ${JSON.stringify(contentType)}, not application/json`);
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      problems.push(`body is not JSON: ${answer.text.slice(0, 80)}`);
      return problems;
    }
    const ref = (media.schema as Node | undefined)?.$ref;
    const prefix = '#/components/schemas/';
    if (typeof ref === 'string' && ref.startsWith(prefix)) {
      const result = contract.validate(ref.slice(prefix.length) as SchemaName, body);
      if (!result.ok) problems.push(`body does not match ${ref.slice(prefix.length)}: ${result.message}`);
    } else if (media.schema) {
      const fn = ajv.compile(structuredClone(media.schema as Node));
      if (!fn(body)) problems.push(`body does not match the declared schema`);
    }
    return problems;
  };
}
