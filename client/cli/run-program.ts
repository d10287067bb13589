/**
 * Runs a commander program with this CLI's exit codes: 0 ok (and --help), 1 a check or
 * delivery failed (set by the command), 2 usage error. Never prints a stack trace.
 */
import { CommanderError, type Command } from 'commander';

/** Exit code of a usage error (bad option, missing argument, unknown command). */
export const EXIT_USAGE = 2;
/** Exit code of a failed check or delivery. */
export const EXIT_FAILED = 1;

/** Makes every command of the tree throw instead of calling process.exit (commander `exitOverride`). */
function overrideExits(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) overrideExits(sub);
}

/** Parses `argv` (process.argv form) and resolves to the exit code; commands set `process.exitCode` on failure. */
export async function runProgram(program: Command, argv: readonly string[]): Promise<number> {
  overrideExits(program);
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander has already printed the message (or the help) to stderr.
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? 0 : EXIT_USAGE;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`error: ${message}\n`);
    return EXIT_FAILED;
  }
}
