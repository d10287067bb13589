/**
 * What `watch` reads of the contract: which operation a method and path reach (under any base
 * path, for the resume API and for the webhook), the declared parameters, request body and
 * answers, each resolved, and validators for header values and bodies compiled once.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Contract } from '@session-resume-api/runtime/contract';
import { resolveRef } from '@session-resume-api/runtime/resolve-ref';
import type { SchemaName } from '@session-resume-api/runtime/types';

type Node = Record<string, unknown>;

// ajv-formats is CommonJS: under NodeNext its default import is `module.exports`, whose
// `default` member is the plugin.
const addFormats = addFormatsModule.default;

/** One declared parameter, resolved. */
export interface Parameter {
  name: string;
  in: string;
  required: boolean;
  schema: Node;
}

/** One declared answer, resolved: its headers (name to declaration) and its JSON body schema. */
export interface DeclaredAnswer {
  headers: ReadonlyMap<string, { required: boolean; schema: Node }>;
  jsonSchema: Node | undefined;
}

/** An operation of the document, as `watch` needs it. */
export interface Operation {
  /** `POST /v1/sessions/{session_id}/resume`, or `POST webhook sessionEvent`. */
  label: string;
  method: string;
  parameters: readonly Parameter[];
  /** The JSON request body schema, when declared. */
  requestSchema: Node | undefined;
  requestRequired: boolean;
  /** The answer declared for `status` (or `default`), undefined when none is. */
  answer(status: number): DeclaredAnswer | undefined;
  /** The statuses whose declared body is the error shape (`components.schemas.Error`), in the document's order. */
  errorStatuses: readonly string[];
  /** Whether the answer declared for `status` (or `default`) has the error shape as its body. */
  declaresError(status: number): boolean;
}

/** A path of the document matched by a request path: the operations there and the path parameters. */
export interface PathMatch {
  template: string;
  operations: ReadonlyMap<string, Operation>;
  /** Path parameters as sent (still percent-encoded). */
  params: Readonly<Record<string, string>>;
}

/** The contract as `watch` reads it. */
export interface ContractView {
  /** The document path a request path reaches (any base path before it), or undefined. */
  matchPath(path: string): PathMatch | undefined;
  /** The webhook operation the service calls (the first of `webhooks`). */
  webhook: Operation | undefined;
  /** Problems of `value` against `schema` (a header value or a parsed body), empty when valid. */
  problems(schema: Node, value: unknown): string[];
  /**
   * The members the error shape fixes (`const` in `components.schemas.Error`, e.g. `success: false`):
   * a body carrying them all is an error answer.
   */
  errorMarks: Readonly<Record<string, unknown>>;
}

/** Where the error shape is declared. */
export const ERROR_SCHEMA_REF = '#/components/schemas/Error';

/** Reads `contract.document` once. */
export function createContractView(contract: Contract): ContractView {
  const doc = contract.document;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv, ['int32', 'int64']);
  const compiled = new Map<object, ValidateFunction>();
  const problems = (schema: Node, value: unknown): string[] => {
    const ref = typeof schema.$ref === 'string' ? schema.$ref : undefined;
    const prefix = '#/components/schemas/';
    if (ref?.startsWith(prefix)) {
      const result = contract.validate(ref.slice(prefix.length) as SchemaName, value);
      return result.ok ? [] : [`does not match ${ref.slice(prefix.length)}: ${result.message}`];
    }
    let fn = compiled.get(schema);
    if (!fn) compiled.set(schema, (fn = ajv.compile(structuredClone(schema))));
    return fn(value) ? [] : [`does not match its schema (${ajv.errorsText(fn.errors, { separator: '; ' })})`];
  };
  const paths = Object.entries(doc.paths).map(([template, item]) => ({
    template,
    pattern: pathPattern(template),
    names: [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string),
    operations: operationsOf(doc, template, item as Node),
  }));
  const webhookItem = Object.entries(doc.webhooks ?? {})[0];
  const webhook = webhookItem
    ? operationsOf(doc, `webhook ${webhookItem[0]}`, webhookItem[1] as Node)
        .values()
        .next().value
    : undefined;
  return {
    matchPath(path) {
      for (const p of paths) {
        const m = p.pattern.exec(path);
        if (m) return { template: p.template, operations: p.operations, params: Object.fromEntries(p.names.map((n, i) => [n, m[i + 1] as string])) };
      }
      return undefined;
    },
    webhook,
    problems,
    errorMarks: constMembers(resolveRef(doc, { $ref: ERROR_SCHEMA_REF }) as Node | undefined),
  };
}

/** The members a schema fixes with `const`. */
function constMembers(schema: Node | undefined): Record<string, unknown> {
  const properties = (schema?.properties ?? {}) as Record<string, Node>;
  return Object.fromEntries(Object.entries(properties).flatMap(([name, property]) => ('const' in property ? [[name, property.const]] : [])));
}

/** `/v1/sessions/{session_id}/resume` → a pattern matching it after any base path, one segment per parameter. */
function pathPattern(template: string): RegExp {
  const source = template
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('([^/]+)');
  return new RegExp(`^(?:/[^?#]*)?${source}$`);
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function operationsOf(doc: unknown, label: string, item: Node): Map<string, Operation> {
  const shared = (item.parameters ?? []) as unknown[];
  const operations = new Map<string, Operation>();
  for (const method of METHODS) {
    const raw = item[method] as Node | undefined;
    if (!raw) continue;
    const parameters = [...shared, ...((raw.parameters ?? []) as unknown[])].map((p) => {
      const param = resolveRef(doc, p) as Node;
      return { name: String(param.name), in: String(param.in), required: param.required === true, schema: resolveRef(doc, param.schema) as Node };
    });
    const body = resolveRef(doc, raw.requestBody) as Node | undefined;
    const media = ((body?.content ?? {}) as Node)['application/json'] as Node | undefined;
    const responses = (raw.responses ?? {}) as Node;
    operations.set(method.toUpperCase(), {
      label: `${method.toUpperCase()} ${label}`,
      method: method.toUpperCase(),
      parameters,
      requestSchema: media?.schema as Node | undefined,
      requestRequired: body?.required === true,
      answer: (status) => declaredAnswer(doc, responses[String(status)] ?? responses.default),
      errorStatuses: Object.keys(responses).filter((status) => declaresError(doc, responses[status])),
      declaresError: (status) => declaresError(doc, responses[String(status)] ?? responses.default),
    });
  }
  return operations;
}

/** Whether a declared answer's JSON body is the error shape. */
function declaresError(doc: unknown, raw: unknown): boolean {
  const media = ((((resolveRef(doc, raw) as Node | undefined)?.content ?? {}) as Node)['application/json'] ?? {}) as Node;
  return (media.schema as Node | undefined)?.$ref === ERROR_SCHEMA_REF;
}

function declaredAnswer(doc: unknown, raw: unknown): DeclaredAnswer | undefined {
  if (!raw) return undefined;
  const response = resolveRef(doc, raw) as Node;
  const headers = new Map<string, { required: boolean; schema: Node }>();
  for (const [name, rawHeader] of Object.entries((response.headers ?? {}) as Node)) {
    const h = resolveRef(doc, rawHeader) as Node;
    headers.set(name.toLowerCase(), { required: h.required === true, schema: resolveRef(doc, h.schema) as Node });
  }
  const media = ((response.content ?? {}) as Node)['application/json'] as Node | undefined;
  return { headers, jsonSchema: media?.schema as Node | undefined };
}
