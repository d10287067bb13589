#!/usr/bin/env node
/** Entry of the `session-resume-api` command (package `bin`): one line per command. */
import { createClientCommand } from './client-command.js';
import { createConformanceCommand } from './conformance-command.js';
import { createListenCommand } from './listen-command.js';
import { createProgram, runProgram } from './program.js';
import { createResumeCommand } from './resume-command.js';
import { createWatchCommand } from './watch-command.js';
import { createWebhookCommand } from './webhook-command.js';

const program = createProgram([
  createResumeCommand(),
  createWebhookCommand(),
  createListenCommand(),
  createClientCommand(),
  createConformanceCommand(),
  createWatchCommand(),
]);
process.exitCode = await runProgram(program, process.argv);
