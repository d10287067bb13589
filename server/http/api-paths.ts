/**
 * The API's own paths, matched as express routes them (x-decisions: routing) but without decoding, so
 * a malformed percent-encoded id still meets the key check first (x-decisions: unknown-paths).
 */
import { pathToRegexp } from 'path-to-regexp';

/** True when `path` (without the query) is one of the document's paths. */
export type ApiPathMatcher = (path: string) => boolean;

/**
 * Compiles OpenAPI path templates with path-to-regexp, the matcher express uses; each `{name}` is
 * one non-empty segment.
 * @example createApiPathMatcher(Object.keys(document.paths))('/v1/sessions/s1/resume') // true
 */
export function createApiPathMatcher(templates: readonly string[]): ApiPathMatcher {
  const expressions = templates.map((template) => pathToRegexp(template.replace(/\{([^}]+)\}/g, ':$1'), { sensitive: true, trailing: false }).regexp);
  return (path) => expressions.some((expression) => expression.test(path));
}
