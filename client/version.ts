import { VERSION } from '@session-resume-api/runtime/version';

/** Version of this package, sent in the default User-Agent (the shared runtime's `VERSION`). */
export const PACKAGE_VERSION = VERSION;
