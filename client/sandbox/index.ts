/** Public entry of `session-resume-api/sandbox`: the typed client of the sandbox control API. Browser-safe. */
export { createSandboxClient, newSandboxKey, SandboxClientError } from './sandbox-client.js';
export type { DeliveryProfile, SandboxClient, SandboxClientOptions, SandboxEvent, SandboxSession } from './sandbox-client.js';
