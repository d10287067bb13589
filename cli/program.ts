/**
 * The `session-resume-api` program: commands are built elsewhere and added here; this file
 * owns the exit-code rules (2 for usage) and the "message, never a stack trace" rule.
 */
import { Command, CommanderError } from 'commander';
import { VERSION } from '@session-resume-api/runtime/version';
import { addVersionFlags } from '@session-resume-api/runtime/cli-version';
import { UsageError } from '@session-resume-api/runtime/usage-error';

export { UsageError };

/** Exit codes of the CLI, one per outcome (documented in docs/cli.md). */
export const EXIT = {
  resumed: 0,
  unexpected: 1,
  /** A webhook check or delivery failed (`webhook check`, `webhook send`), or a graded rule (`webhook grade`, `client grade`). */
  failed: 1,
  usage: 2,
  not_paused: 3,
  not_found: 4,
  unauthorized: 5,
  rate_limited: 6,
} as const;

function applyToAll(command: Command, visit: (c: Command) => void): void {
  visit(command);
  for (const sub of command.commands) applyToAll(sub, visit);
}

/** Builds the program from its commands (one entry per command). */
export function createProgram(commands: readonly Command[]): Command {
  const program = addVersionFlags(
    new Command('session-resume-api').description(
      'Command line for the Session Resume API: resume paused sessions, check and exercise webhook receivers, grade clients and receivers, watch traffic for drift from the contract.',
    ),
    VERSION,
  );
  for (const command of commands) program.addCommand(command);
  // Commander exits itself with code 1 on usage errors; we take over to exit 2.
  applyToAll(program, (c) => c.exitOverride().showHelpAfterError('(run with --help for usage)'));
  return program;
}

/** Parses argv and runs; resolves to the exit code (never throws, never prints a stack trace). */
export async function runProgram(program: Command, argv: readonly string[]): Promise<number> {
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version print and end in 0; any other parse failure is a usage error.
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0 ? 0 : EXIT.usage;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`session-resume-api: ${message}\n`);
    return error instanceof UsageError ? EXIT.usage : EXIT.unexpected;
  }
}
