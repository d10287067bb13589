/** The version both packages share, in User-Agents and `--version`; a unit test keeps the package.json files equal. */
export const VERSION = '0.2.0';
