/**
 * Three start-up costs of express-openapi-validator 5.6.2 that buy nothing for this server, each
 * removed by swapping one member of its (CommonJS) modules; all are upstream proposals in
 * bench/findings.md "Start-up". Bundled or not, these are the module instances the
 * validator itself uses, and each swap keeps the results the same object for object:
 * - `OpenAPISchemaValidator`'s constructor compiles the whole OpenAPI 3.1 meta-schema, even with
 *   `validateApiSpec: false` where `validate()` is never called (dist/framework/index.js reads the
 *   class from its module's exports at each construction): here it compiles on the first `validate()`.
 * - `SchemaPreprocessor.resolveSchema` reads a `#/components/schemas/<name>` reference through
 *   `ajv.getSchema(ref).schema`, which compiles that schema (in an Ajv instance used for nothing
 *   else) only to hand back the object it was given: here that object is read from the document.
 * - The response validator compiles, at a route's first answer, one Ajv schema per status code
 *   of that route (each embedding the whole of `components`), though an answer needs one:
 *   `useAjvCache` (read from dist/middlewares/util.js's exports at each call) here returns a
 *   function that compiles on its first call, so each status code's schema compiles when an
 *   answer with that code is first checked.
 */
import schemaValidatorModule from 'express-openapi-validator/dist/framework/openapi.schema.validator.js';
import preprocessorModule from 'express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js';
import utilModule from 'express-openapi-validator/dist/middlewares/util.js';

type Original = typeof schemaValidatorModule.OpenAPISchemaValidator;
type Options = ConstructorParameters<Original>[0];
type SchemaValidator = InstanceType<Original>;

const SCHEMA_REF = '#/components/schemas/';
let installed = false;

/** The members each swap replaced, as they were before it (absent: that swap did not happen). */
export interface ReplacedValidatorMembers {
  OpenAPISchemaValidator?: Original;
  resolveSchema?: (this: unknown, schema: unknown) => unknown;
  useAjvCache?: typeof utilModule.useAjvCache;
}
const replaced: ReplacedValidatorMembers = {};

/** What `trimValidatorStartUp` swapped out, for its checks: whichever module installed it first. */
export const replacedValidatorMembers = (): Readonly<ReplacedValidatorMembers> => replaced;

/** Installs the three changes (idempotent). A changed upstream layout leaves the validator as it is: slower to start, never wrong. */
export function trimValidatorStartUp(): void {
  if (installed) return;
  installed = true;
  deferSpecSchemaCompile();
  resolveSchemaRefsWithoutCompiling();
  compileValidatorsOnFirstUse();
}

function deferSpecSchemaCompile(): void {
  const original = schemaValidatorModule.OpenAPISchemaValidator;
  if (typeof original !== 'function') return;
  class LazyOpenApiSchemaValidator {
    #options: Options;
    #compiled: SchemaValidator | undefined;
    constructor(options: Options) {
      this.#options = options;
    }
    validate(document: Parameters<SchemaValidator['validate']>[0]): ReturnType<SchemaValidator['validate']> {
      this.#compiled ??= new original(this.#options);
      return this.#compiled.validate(document);
    }
  }
  replaced.OpenAPISchemaValidator = original;
  schemaValidatorModule.OpenAPISchemaValidator = LazyOpenApiSchemaValidator as unknown as Original;
}

/** The fields of a SchemaPreprocessor this change reads (private in its typings). */
interface PreprocessorState {
  apiDoc?: { components?: { schemas?: Record<string, unknown> } };
  resolvedSchemaCache?: Map<string, unknown>;
}

function resolveSchemaRefsWithoutCompiling(): void {
  const proto = preprocessorModule.SchemaPreprocessor?.prototype as unknown as Record<string, unknown> | undefined;
  const original = proto?.resolveSchema;
  if (!proto || typeof original !== 'function') return;
  replaced.resolveSchema = original as ReplacedValidatorMembers['resolveSchema'];
  proto.resolveSchema = function (this: PreprocessorState, schema: { $ref?: unknown } | null | undefined): unknown {
    const ref = schema?.$ref;
    const name = typeof ref === 'string' && ref.startsWith(SCHEMA_REF) ? ref.slice(SCHEMA_REF.length) : undefined;
    const schemas = this.apiDoc?.components?.schemas;
    // Plain names only: a JSON pointer with escapes or deeper segments takes the original path.
    if (name === undefined || /[/~%]/.test(name) || !schemas || !Object.hasOwn(schemas, name) || !this.resolvedSchemaCache) {
      return original.call(this, schema);
    }
    if (!this.resolvedSchemaCache.has(ref as string)) this.resolvedSchemaCache.set(ref as string, schemas[name]);
    return this.resolvedSchemaCache.get(ref as string);
  };
}

type ValidateFunction = ((this: unknown, ...args: unknown[]) => boolean) & { errors?: unknown };

function compileValidatorsOnFirstUse(): void {
  const original = utilModule.useAjvCache as unknown as ((...args: unknown[]) => ValidateFunction) | undefined;
  if (typeof original !== 'function') return;
  const lazy = (...args: unknown[]): ValidateFunction => {
    let compiled: ValidateFunction | undefined;
    // The callers call the function and then read its `errors`: nothing else.
    const validate: ValidateFunction = function (this: unknown, ...data: unknown[]) {
      compiled ??= original(...args);
      const valid = compiled.apply(this, data);
      validate.errors = compiled.errors;
      return valid;
    };
    return validate;
  };
  replaced.useAjvCache = utilModule.useAjvCache;
  utilModule.useAjvCache = lazy as unknown as typeof utilModule.useAjvCache;
}
