/**
 * `--version` as both command lines take it: `-v` (as node and npm spell it), `-V`
 * (commander's default, kept for scripts that use it) and `--version` print the version and
 * end with exit 0.
 */
import { CommanderError, Option, type Command } from 'commander';

/**
 * Adds the version flags to `program`; the version is written with the program's output
 * configuration.
 * @example addVersionFlags(new Command('session-resume-api'), '1.2.0');
 */
export function addVersionFlags(program: Command, version: string): Command {
  program.version(version, '-v, --version', 'print the version');
  program.addOption(new Option('-V', 'print the version').hideHelp());
  program.on('option:V', () => {
    program.configureOutput().writeOut?.(`${version}\n`);
    // Commander's own version flag ends the same way: exit 0 through exitOverride.
    throw new CommanderError(0, 'commander.version', version);
  });
  return program;
}
