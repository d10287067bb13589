/** spec/openapi.yaml at run time: loaded once, with the Ajv (JSON Schema 2020-12) validators server and client share. Node-only. */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import type { ApiComponents as components } from 'session-resume-api-types';
import type { SchemaName } from './types.js';

export type { ErrorBody, ResumeResult, SchemaName, SessionEvent, WebhookAck } from './types.js';

// ajv-formats is CommonJS: under NodeNext the plugin is the default import's `default`.
const addFormats = addFormatsModule.default;

/** Beside this code in a built package (.ci/build.mjs copies the documents there), else the repository's `spec/`. */
function documentPath(name: string): string {
  const beside = fileURLToPath(new URL(`./${name}`, import.meta.url));
  return existsSync(beside) ? beside : fileURLToPath(new URL(`../spec/${name}`, import.meta.url));
}

/** Absolute path of the OpenAPI document shipped with this package (spec/openapi.yaml). */
export const specPath: string = documentPath('openapi.yaml');

/** Absolute path of the sandbox control API's document (spec/sandbox.yaml). */
export const sandboxSpecPath: string = documentPath('sandbox.yaml');

/** The parts of an OpenAPI 3.1 document this module reads. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; [key: string]: unknown };
  paths: Record<string, Record<string, unknown>>;
  webhooks?: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, unknown>; [key: string]: unknown };
  [key: string]: unknown;
}

/** Outcome of validating a value against a component schema. */
export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: ErrorObject[]; message: string };

/** A loaded, checked contract: the document plus one compiled validator per component schema. */
export interface Contract {
  /** Where the document was read from. */
  path: string;
  /** The parsed document, deeply frozen: pass `structuredClone(document)` to libraries that mutate. */
  document: OpenApiDocument;
  validate<N extends SchemaName>(name: N, value: unknown): ValidationResult<components['schemas'][N]>;
  validator(name: SchemaName): ValidateFunction;
}

/** Thrown when the document cannot be read, parsed or compiled; `cause` holds the underlying error. */
export class ContractError extends Error {
  override name = 'ContractError';
}

// Registered under this URI so `#/components/schemas/X` references resolve inside it (JSON Schema 2020-12 §8.2.1).
const DOCUMENT_ID = 'urn:session-resume-api:openapi';

/** Renders Ajv errors as one sentence, e.g. "/session must have required property 'id'". */
export function formatSchemaErrors(errors: readonly ErrorObject[] | null | undefined): string {
  if (!errors?.length) return 'invalid';
  return errors.map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`).join('; ');
}

/** Options of `loadContract`. */
export interface LoadContractOptions {
  /**
   * Compile each schema on its first use instead of at load: for the shipped documents, which CI lints.
   * @defaultValue `false`
   */
  lazy?: boolean;
}

/**
 * Reads, parses and checks an OpenAPI document and compiles every component schema, so a broken
 * document fails at start-up naming the file, not at a first request. Throws `ContractError`.
 */
export function loadContract(path: string = specPath, options: LoadContractOptions = {}): Contract {
  const fail = (what: string, cause?: unknown): never => {
    const detail = cause instanceof Error ? `: ${cause.message}` : '';
    throw new ContractError(`${path} ${what}${detail}`, { cause });
  };
  const document = readDocument(path, fail);
  if (typeof document !== 'object' || document === null) fail('is not an OpenAPI document (not a mapping)');
  if (!/^3\.1\.\d+$/.test(String(document.openapi))) {
    fail(`is not an OpenAPI 3.1 document (openapi: ${String(document.openapi)})`);
  }
  if (typeof document.paths !== 'object' || document.paths === null) fail('has no paths');
  const schemas = document.components?.schemas;
  if (typeof schemas !== 'object' || schemas === null) fail('has no components.schemas');

  // A shipped document is linted in CI: skip the meta-schema check, most of a lazy load's cost.
  const ajv = new Ajv2020({ allErrors: true, strict: true, validateSchema: !options.lazy });
  addFormats(ajv);
  // `components` is the OpenAPI container of the schemas, not a JSON Schema keyword.
  ajv.addKeyword('components');
  const cache = new Map<string, ValidateFunction>();
  const compile = (name: string): ValidateFunction => {
    let fn = cache.get(name);
    if (!fn) {
      if (!Object.hasOwn(schemas, name)) fail(`has no schema components.schemas.${name}`);
      try {
        fn = ajv.getSchema(`${DOCUMENT_ID}#/components/schemas/${name}`);
      } catch (cause) {
        return fail(`has an invalid schema components.schemas.${name}`, cause);
      }
      if (!fn) return fail(`has no schema components.schemas.${name}`);
      cache.set(name, fn);
    }
    return fn;
  };
  try {
    ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas } });
  } catch (cause) {
    fail('has invalid component schemas', cause);
  }
  if (!options.lazy) for (const name of Object.keys(schemas)) compile(name);

  return {
    path,
    document: deepFreeze(document),
    validator: compile,
    validate(name, value) {
      const fn = compile(name);
      if (fn(value)) return { ok: true, value: value as never };
      const errors = [...(fn.errors ?? [])];
      return { ok: false, errors, message: formatSchemaErrors(errors) };
    },
  };
}

/** The JSON twin the build writes beside a shipped YAML file when there is one (far cheaper to parse), else the YAML. */
function readDocument(path: string, fail: (what: string, cause?: unknown) => never): OpenApiDocument {
  const twin = path.endsWith('.yaml') ? `${path.slice(0, -'.yaml'.length)}.json` : undefined;
  const source = twin && existsSync(twin) ? twin : path;
  let text: string;
  try {
    text = readFileSync(source, 'utf8');
  } catch (cause) {
    return fail('cannot be read', cause);
  }
  try {
    return (source === twin ? JSON.parse(text) : parse(text)) as OpenApiDocument;
  } catch (cause) {
    return fail('is not valid YAML', cause);
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** The contract of this package, loaded once at import from `specPath`. */
export const contract: Contract = loadContract(specPath, { lazy: true });
