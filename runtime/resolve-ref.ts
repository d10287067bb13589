/** Follows a local `$ref` ("#/a/b", JSON Pointer escapes ~0 ~1) inside an OpenAPI document; returns other values unchanged. */
export function resolveRef(doc: unknown, node: unknown): unknown {
  const ref = (node as { $ref?: unknown } | undefined)?.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return node;
  const target = ref
    .slice(2)
    .split('/')
    .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  return resolveRef(doc, target);
}
