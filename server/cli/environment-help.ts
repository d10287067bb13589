/** The environment-variable section of `session-resume-api-server --help`, rendered from the one table in server/config.ts. */
import { ENVIRONMENT, type EnvVariable } from '../config.js';

/**
 * One line per variable: name, what it sets, and its default.
 * @example program.addHelpText('after', renderEnvironmentHelp());
 */
export function renderEnvironmentHelp(table: Readonly<Record<string, EnvVariable>> = ENVIRONMENT): string {
  const entries = Object.entries(table);
  const width = Math.max(...entries.map(([name]) => name.length));
  const lines = entries.map(([name, v]) => `  ${name.padEnd(width)}  ${v.meaning} [default: ${String(v.default)}]`);
  return ['', 'Environment variables (the server and every command read them):', ...lines].join('\n');
}
