/**
 * The generated types of spec/openapi.yaml and spec/sandbox.yaml under names that say whose they
 * are: one package that the published packages' declarations import, so each API report lists
 * them once (api/types.api.md) and every other report names them. Type-only: nothing runs.
 * The build writes dist/index.d.ts from this file, with the generated files beside it.
 */
export type { components as ApiComponents, operations as ApiOperations, paths as ApiPaths, webhooks as ApiWebhooks } from '../generated/api.js';
export type { components as SandboxApiComponents, operations as SandboxApiOperations, paths as SandboxApiPaths } from '../generated/sandbox.js';
