/** Sandbox mode of the reference server: key worlds, control API, Prefer forcing, event feed. */
export { createSandbox } from './create-sandbox.js';
export type { Sandbox, SandboxOptions } from './create-sandbox.js';
export { sandboxSpecPath } from './control-router.js';
export { choosePrefer } from './prefer-forcing.js';
export { createSandboxWorlds } from './sandbox-worlds.js';
export type { SandboxEvent, SandboxWorld, SandboxWorlds, SandboxWorldsOptions } from './sandbox-worlds.js';
export { renderSandboxBanner } from './sandbox-banner.js';
export { newSandboxKey, SANDBOX_KEY_PREFIX } from '@session-resume-api/runtime/sandbox-key';
