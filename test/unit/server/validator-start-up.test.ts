/**
 * server/http/validator-start-up.ts swaps three members of express-openapi-validator's modules;
 * on an upgrade that moves them it silently leaves the validator as it was. These checks say so
 * instead, and check that each swap gives the same results as the member it replaces.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import schemaValidatorModule from 'express-openapi-validator/dist/framework/openapi.schema.validator.js';
import preprocessorModule from 'express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js';
import utilModule from 'express-openapi-validator/dist/middlewares/util.js';
import { describe, expect, it } from 'vitest';
import { replacedValidatorMembers, trimValidatorStartUp } from '../../../server/http/validator-start-up.js';

// resolveSchema is private in the typings: read it as a plain member.
const resolveSchemaOf = () => (preprocessorModule.SchemaPreprocessor.prototype as unknown as { resolveSchema: Resolve }).resolveSchema;
type Resolve = (this: unknown, schema: unknown) => unknown;
// Another test file of the same worker may have installed them first (server/app.ts does at
// import): the module says what it replaced.
trimValidatorStartUp();
const originals = replacedValidatorMembers();

describe('express-openapi-validator start-up trims', () => {
  it('are installed (the members still exist where they are swapped)', () => {
    expect(originals.OpenAPISchemaValidator).toBeTypeOf('function');
    expect(originals.resolveSchema).toBeTypeOf('function');
    expect(originals.useAjvCache).toBeTypeOf('function');
    expect(schemaValidatorModule.OpenAPISchemaValidator).not.toBe(originals.OpenAPISchemaValidator);
    expect(resolveSchemaOf()).not.toBe(originals.resolveSchema);
    expect(utilModule.useAjvCache).not.toBe(originals.useAjvCache);
  });

  it('the OpenAPI schema check compiles on its first use and still finds errors', () => {
    const validator = new schemaValidatorModule.OpenAPISchemaValidator({ version: '3.1.0', validateApiSpec: true });
    expect(Object.keys(validator)).toEqual([]);
    const { errors } = validator.validate({ openapi: '3.1.0', info: { title: 't' }, paths: {} } as never);
    expect(errors?.map((e) => e.message)).toContain("must have required property 'version'");
  });

  it('a component schema reference resolves to the document object, as through Ajv', () => {
    const doc = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {}, components: { schemas: { Thing: { type: 'object' } } } };
    const preprocessor = new preprocessorModule.SchemaPreprocessor(doc as never, { formats: {} } as never, undefined as never);
    expect(resolveSchemaOf().call(preprocessor, { $ref: '#/components/schemas/Thing' })).toBe(doc.components.schemas.Thing);
    const fresh = new preprocessorModule.SchemaPreprocessor(doc as never, { formats: {} } as never, undefined as never);
    expect(originals.resolveSchema!.call(fresh, { $ref: '#/components/schemas/Thing' })).toBe(doc.components.schemas.Thing);
  });

  it('a validator compiles on its first call and reports errors like the compiled one', () => {
    const ajv = new Ajv2020();
    const schema = { type: 'object', required: ['id'] };
    const validate = utilModule.useAjvCache(ajv as never, schema as never, 'lazy-check');
    expect(ajv.getSchema('lazy-check')).toBeUndefined();
    expect(validate({})).toBe(false);
    expect((validate as unknown as { errors: { message: string }[] }).errors[0]?.message).toBe("must have required property 'id'");
    expect(validate({ id: 1 })).toBe(true);
    expect((validate as unknown as { errors: unknown }).errors).toBeNull();
  });
});
