// The resolve hook of behaviour-substitute.mjs: generated/behaviour.js → the file it was given.
import { pathToFileURL } from 'node:url';

let target;

export function initialize(data) {
  target = pathToFileURL(data.target).href;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  return new URL(resolved.url).pathname.endsWith('/generated/behaviour.js') ? { ...resolved, url: target, shortCircuit: true } : resolved;
}
