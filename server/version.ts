import { VERSION } from '@session-resume-api/runtime/version';

/** Version of the server package, printed by `session-resume-api-server --version` (the shared runtime's `VERSION`). */
export const SERVER_VERSION = VERSION;
