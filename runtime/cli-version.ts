/** `--version`, `-v` (as node and npm) and `-V` (commander's default, kept for scripts) print the version and exit 0. */
import { CommanderError, Option, type Command } from 'commander';

/** Adds the version flags to `program`, written through its output configuration. */
export function addVersionFlags(program: Command, version: string): Command {
  program.version(version, '-v, --version', 'print the version');
  program.addOption(new Option('-V', 'print the version').hideHelp());
  program.on('option:V', () => {
    program.configureOutput().writeOut?.(`${version}\n`);
    throw new CommanderError(0, 'commander.version', version);
  });
  return program;
}
