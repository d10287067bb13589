/**
 * The version both published packages share (they are released together): sent in the default
 * User-Agent of the client and of webhook deliveries, printed by both command lines' `--version`.
 * Kept equal to client/package.json and server/package.json by a unit test.
 */
export const VERSION = '0.2.0';
