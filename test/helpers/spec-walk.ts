/** Follows a local `$ref` ("#/a/b") inside an OpenAPI document; one implementation, in runtime/resolve-ref.ts. */
export { resolveRef } from '@session-resume-api/runtime/resolve-ref';
