/**
 * Operator commands of `session-resume-api-server` (`seed`, and any command added to
 * `SERVER_COMMANDS`): without a command the binary starts the server (server/main.ts).
 * Each command lives in its own file in server/cli/ and is one entry of the list below.
 */
import { Command, CommanderError } from 'commander';
import type { Env } from '../config.js';
import { createSeedCommand } from './seed-command.js';
import { ServerUsageError } from './usage-error.js';

export { ServerUsageError };

/** Builds one command; `env` is the process environment handed in by server/main.ts. */
export type ServerCommandFactory = (env: Env) => Command;

/** Every operator command, one line each (add others here, e.g. the webhook dead-letter commands). */
export const SERVER_COMMANDS: readonly ServerCommandFactory[] = [createSeedCommand];

/** Exit codes: 0 done, 1 failed (Redis, seed file), 2 usage. */
export const SERVER_EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** Builds the program holding every command of `SERVER_COMMANDS`. */
export function createServerProgram(env: Env): Command {
  const program = new Command('session-resume-api-server')
    .description('Session Resume API reference server. Without a command it starts the server (configured by environment variables).')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  for (const factory of SERVER_COMMANDS) {
    const command = factory(env);
    program.addCommand(command.exitOverride().showHelpAfterError('(run with --help for usage)'));
  }
  return program;
}

/** True when argv names a command (or asks for help): run `runServerCli` instead of the server. */
export function isServerCommand(argv: readonly string[], env: Env = {}): boolean {
  const first = argv[2];
  if (first === undefined) return false;
  if (first === '--help' || first === '-h' || first === 'help') return true;
  return createServerProgram(env).commands.some((c) => c.name() === first);
}

/**
 * Parses argv (`[node, script, command, ...]`) and runs the command; resolves to the exit
 * code and never throws: failures print one line to stderr, never a stack trace.
 *
 * @example
 * process.exitCode = await runServerCli(process.argv, process.env);
 */
export async function runServerCli(argv: readonly string[], env: Env): Promise<number> {
  try {
    await createServerProgram(env).parseAsync([...argv]);
    return SERVER_EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.code === 'commander.helpDisplayed' || error.exitCode === 0 ? SERVER_EXIT.ok : SERVER_EXIT.usage;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`session-resume-api-server: ${message}\n`);
    return error instanceof ServerUsageError ? SERVER_EXIT.usage : SERVER_EXIT.failed;
  }
}
