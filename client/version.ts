/** Version of this package, sent in the default User-Agent (kept equal to package.json by a unit test). */
export const PACKAGE_VERSION = '0.2.0';
