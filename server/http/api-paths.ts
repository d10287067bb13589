/**
 * Which request paths are the API's own: the keys of the document's `paths`, matched the way
 * express routes them (case-sensitive, no trailing slash: x-decisions: routing) but without
 * decoding, so a path whose id is malformed percent-encoding still counts as the resume path
 * and meets the key check before anything else (x-decisions: unknown-paths, request-checks).
 */
import { pathToRegexp } from 'path-to-regexp';

/** True when `path` (without the query) is one of the document's paths. */
export type ApiPathMatcher = (path: string) => boolean;

/**
 * Compiles OpenAPI path templates (`/v1/sessions/{session_id}/resume`) with path-to-regexp,
 * the matcher express itself uses; each `{name}` stands for one non-empty path segment. Only
 * a yes or no is asked, so the compiled expressions are tested, never matched into parameters.
 *
 * @example createApiPathMatcher(Object.keys(document.paths))('/v1/sessions/s1/resume') // true
 */
export function createApiPathMatcher(templates: readonly string[]): ApiPathMatcher {
  const expressions = templates.map(
    (template) => pathToRegexp(template.replace(/\{([^}]+)\}/g, ':$1'), { sensitive: true, trailing: false }).regexp,
  );
  return (path) => expressions.some((expression) => expression.test(path));
}
