/** Version of the server package, printed by `session-resume-api-server --version` (kept equal to package.json by a unit test). */
export const SERVER_VERSION = '0.2.0';
