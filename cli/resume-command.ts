/** `session-resume-api resume <session-id>`: a thin layer over `client.resume`. */
import { RESUME_RETRY_POLICY } from '@session-resume-api/runtime/behaviour';
import { Command, InvalidArgumentError } from 'commander';
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from '@session-resume-api/runtime/client-defaults';
import { createSessionsClient, SessionsClientError, type ResumeOutcome } from 'session-resume-api/client';
import { readCliEnv, type CliEnv } from './config.js';
import { EXIT, UsageError } from './program.js';
import { wholeNumberArgument } from './whole-number-argument.js';

interface ResumeCliOptions {
  baseUrl?: string;
  apiKey?: string;
  json?: boolean;
  timeoutMs?: number;
  retries?: number;
  header?: string[];
  idempotencyKey?: string;
}

const collectHeader = (value: string, previous: string[] | undefined) => {
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+:/.test(value)) throw new InvalidArgumentError('use "Name: value".');
  return [...(previous ?? []), value];
};

/** One line saying what happened, for people. */
function describe(sessionId: string, outcome: ResumeOutcome): string {
  const tries = outcome.attempts > 1 ? ` after ${outcome.attempts} attempts` : '';
  switch (outcome.kind) {
    case 'resumed':
      return `Resumed session ${sessionId}: ${outcome.result.message}`;
    case 'not_paused':
      return (
        `Session ${sessionId} is not paused (HTTP ${outcome.status}${tries}): ${outcome.message}` +
        (outcome.attempts > 1 ? '\nAn earlier attempt may have resumed it: check its state before retrying.' : '')
      );
    case 'not_found':
      return `Session ${sessionId} was not found (HTTP 404): ${outcome.message}`;
    case 'unauthorized':
      return `The API key was refused (HTTP ${outcome.status}): ${outcome.message}\nCheck --api-key or SESSION_RESUME_API_KEY.`;
    case 'rate_limited':
      return (
        `Rate limited (HTTP 429${tries}): ${outcome.message}` + (outcome.retryAfterSeconds === undefined ? '' : `\nRetry after ${outcome.retryAfterSeconds} s.`)
      );
    case 'unexpected':
      return `Unexpected answer (HTTP ${outcome.status}${tries}): ${outcome.message}`;
  }
}

/** Creates the `resume` command; `env` defaults to the process environment (SESSION_RESUME_*). */
export function createResumeCommand(env: CliEnv = readCliEnv()): Command {
  return (
    new Command('resume')
      .description('Resume a paused session (POST /v1/sessions/{session_id}/resume).')
      .argument('<session-id>', 'id of the session to resume')
      // The environment is read by config.ts, not by commander's Option.env (one typed loader).
      .option('--base-url <url>', 'base URL of the service, without /v1 (env: SESSION_RESUME_BASE_URL)')
      .option('--api-key <key>', 'API key (env: SESSION_RESUME_API_KEY, preferred: arguments show in ps)')
      .option('--json', 'print the outcome as JSON')
      .option('--timeout-ms <ms>', `deadline of each attempt in ms (default ${DEFAULT_TIMEOUT_MS})`, wholeNumberArgument())
      .option(
        '--retries <n>',
        `retries of ${RESUME_RETRY_POLICY.retryableStatuses.join('/')} and network failures (default ${DEFAULT_MAX_RETRIES})`,
        wholeNumberArgument(),
      )
      .option('-H, --header <header>', 'extra request header "Name: value" (repeatable)', collectHeader)
      .option('--idempotency-key <key>', 'Idempotency-Key of this resume, 1 to 255 characters (default: a random UUID); reuse it to retry safely')
      .addHelpText('after', '\nExit codes: 0 resumed, 3 not_paused, 4 not_found, 5 unauthorized, 6 rate limited, 1 anything else, 2 usage.')
      .action(async (sessionId: string, options: ResumeCliOptions) => {
        const baseUrl = options.baseUrl ?? env.baseUrl;
        const apiKey = options.apiKey ?? env.apiKey;
        if (!baseUrl) throw new UsageError('no base URL: pass --base-url or set SESSION_RESUME_BASE_URL.');
        if (!apiKey) throw new UsageError('no API key: set SESSION_RESUME_API_KEY (or pass --api-key).');
        let client;
        try {
          client = createSessionsClient({ baseUrl, apiKey, timeoutMs: options.timeoutMs, maxRetries: options.retries });
        } catch (error) {
          throw new UsageError((error as Error).message.replace(/^createSessionsClient: /, ''));
        }
        const headers = Object.fromEntries((options.header ?? []).map((h) => [h.slice(0, h.indexOf(':')).trim(), h.slice(h.indexOf(':') + 1).trim()]));
        let outcome: ResumeOutcome;
        try {
          outcome = await client.resume(sessionId, { headers, ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}) });
        } catch (error) {
          if (error instanceof TypeError) throw new UsageError(error.message);
          if (!(error instanceof SessionsClientError)) throw error;
          const hint = error.code === 'network' ? ' Check --base-url and that the server is running.' : '';
          if (options.json) {
            process.stdout.write(`${JSON.stringify({ sessionId, kind: 'error', code: error.code, message: error.message })}\n`);
          } else {
            process.stderr.write(`session-resume-api: ${error.message}${hint}\n`);
          }
          process.exitCode = EXIT.unexpected;
          return;
        }
        if (options.json) process.stdout.write(`${JSON.stringify({ sessionId, ...outcome })}\n`);
        else (outcome.kind === 'resumed' ? process.stdout : process.stderr).write(`${describe(sessionId, outcome)}\n`);
        process.exitCode = EXIT[outcome.kind];
      })
  );
}
