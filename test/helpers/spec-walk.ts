/** Follows a local `$ref` ("#/a/b") inside an OpenAPI document; one implementation, in spec/resolve-ref.ts. */
export { resolveRef } from '../../spec/resolve-ref.js';
