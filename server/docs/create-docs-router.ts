/**
 * `GET /` (JSON pointing to the reference, no key), `GET /docs` (the page from `npm run docs`; 503
 * with the command when unbuilt, since building on a request would stall it) and `GET /openapi.yaml`.
 */
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { existsSync, readFileSync } from 'node:fs';
import { Router } from 'express';
import { specPath as defaultSpecPath } from '@session-resume-api/runtime/contract';
import { fileURLToPath } from 'node:url';

/** Where the build puts the HTML reference; the same relative path from this source and from server/dist/. */
export const DEFAULT_DOCS_HTML_PATH: string = fileURLToPath(new URL('../dist/docs/index.html', import.meta.url));

/** The answer of `GET /`: where the reference is, and how to call the API. */
export const INDEX_ANSWER = {
  name: 'Session Resume API (reference server)',
  docs: '/docs',
  openapi: '/openapi.yaml',
  health: '/healthz',
  message:
    'Resume a paused session with POST /v1/sessions/{session_id}/resume and Authorization: Bearer <API_KEY>. The reference is at /docs, the OpenAPI document at /openapi.yaml.',
} as const;

/** Options of `createDocsRouter`. */
export interface DocsRouterOptions {
  /**
   * The built HTML page; read on each request, so a rebuild shows at once.
   * @defaultValue server/dist/docs/index.html
   */
  docsHtmlPath?: string;
  /**
   * The OpenAPI document served at /openapi.yaml.
   * @defaultValue spec/openapi.yaml, read once
   */
  specPath?: string;
}

/**
 * Creates the router; throws at creation when the spec cannot be read.
 * @example app.use(createDocsRouter()); // GET /, GET /docs and GET /openapi.yaml
 */
export function createDocsRouter(options: DocsRouterOptions = {}): Router {
  const htmlPath = options.docsHtmlPath ?? DEFAULT_DOCS_HTML_PATH;
  if (typeof htmlPath !== 'string' || htmlPath === '') throw new OptionsError('docsHtmlPath must be a file path', { option: 'docsHtmlPath' });
  const specText = readFileSync(options.specPath ?? defaultSpecPath, 'utf8');
  const router = Router();
  router.get('/', (_req, res) => {
    res.json(INDEX_ANSWER);
  });
  router.get('/openapi.yaml', (_req, res) => {
    // RFC 9512: application/yaml.
    res.type('application/yaml; charset=utf-8').send(specText);
  });
  router.get('/docs', (_req, res) => {
    if (!existsSync(htmlPath)) {
      res.status(503).type('text/plain; charset=utf-8').send(`The API reference is not built: run \`npm run docs\` (writes ${htmlPath}).\n`);
      return;
    }
    // The page is self-contained (tools/docs/build-docs.ts); the policy keeps it so.
    res.set('content-security-policy', "connect-src 'self'; img-src 'self' data: blob:");
    res.type('html').send(readFileSync(htmlPath, 'utf8'));
  });
  return router;
}
