/** The CLI's environment, typed: the only place in client/ that reads `process.env`. */

/** Settings the CLI takes from the environment; command-line options win over them. */
export interface CliEnv {
  /** SESSION_RESUME_BASE_URL: base URL of the service, without /v1. */
  baseUrl: string | undefined;
  /** SESSION_RESUME_API_KEY: the API key (safer here than in --api-key, which other users can see in `ps`). */
  apiKey: string | undefined;
  /** SESSION_RESUME_WEBHOOK_SECRET: the `whsec_` secret `webhook send`, `webhook check` and `listen` sign with. */
  webhookSecret: string | undefined;
}

const nonEmpty = (value: string | undefined): string | undefined => (value?.trim() ? value.trim() : undefined);

/** Reads the CLI's variables from `env` (default process.env); blank values count as unset. */
export function readCliEnv(env: Readonly<Record<string, string | undefined>> = process.env): CliEnv {
  return {
    baseUrl: nonEmpty(env.SESSION_RESUME_BASE_URL),
    apiKey: nonEmpty(env.SESSION_RESUME_API_KEY),
    webhookSecret: nonEmpty(env.SESSION_RESUME_WEBHOOK_SECRET),
  };
}

/** The environment of a command the CLI runs (`client grade --run`): the CLI's own, with `vars` set over it. */
export function childEnv(
  vars: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string | undefined> {
  return { ...env, ...vars };
}
