/**
 * Wire types of the sandbox's control API, read off the types generated from spec/sandbox.yaml:
 * no shape here is written by hand. Type-only, so browser code may import it.
 */
import type { components } from '../generated/sandbox.js';

/**
 * The generated types of spec/sandbox.yaml under names that say whose they are: the types below
 * read them, and the sandbox client's `raw` is typed by `SandboxApiPaths`.
 */
export type { components as SandboxApiComponents, operations as SandboxApiOperations, paths as SandboxApiPaths } from '../generated/sandbox.js';

/** A session of the caller's world. */
export type SandboxSession = components['schemas']['SandboxSession'];
/** One entry of the caller's event feed: the webhook payload and its delivery identity. */
export type SandboxEvent = components['schemas']['SandboxEvent'];
