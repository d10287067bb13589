/**
 * Wire types of the sandbox's control API, read off the types generated from spec/sandbox.yaml:
 * no shape here is written by hand. Type-only, so browser code may import it.
 */
import type { SandboxApiComponents as components } from 'session-resume-api-types';

/**
 * The generated types of spec/sandbox.yaml, from their own package (session-resume-api-types):
 * the types below read them, and the sandbox client's `raw` is typed by `SandboxApiPaths`.
 */
export type { SandboxApiComponents, SandboxApiOperations, SandboxApiPaths } from 'session-resume-api-types';

/** A session of the caller's world. */
export type SandboxSession = components['schemas']['SandboxSession'];
/** One entry of the caller's event feed: the webhook payload and its delivery identity. */
export type SandboxEvent = components['schemas']['SandboxEvent'];
