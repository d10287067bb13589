/** Public entry of `session-resume-api/sandbox`: the typed client of the sandbox control API. Browser-safe. */
export { createSandboxClient, SandboxClientError } from './sandbox-client.js';
export { newSandboxKey } from '@session-resume-api/runtime/sandbox-key';
export type { DeliveryProfile, SandboxClient, SandboxClientOptions, SandboxEvent, SandboxSession } from './sandbox-client.js';
export type { FetchLike } from '../retry.js';
export type { SandboxApiComponents, SandboxApiOperations, SandboxApiPaths } from '@session-resume-api/runtime/sandbox-types';
