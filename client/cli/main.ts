#!/usr/bin/env node
/** The `session-resume-api` command line (minimal entry; subcommands live in their own files). */
import { Command } from 'commander';
import { runProgram } from './run-program.js';
import { createWebhookCommand } from './webhook-command.js';

const program = new Command('session-resume-api')
  .description('Tools for the Session Resume API and its session webhooks.')
  .addCommand(createWebhookCommand());

process.exitCode = await runProgram(program, process.argv);
