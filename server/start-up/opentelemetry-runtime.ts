/**
 * `@opentelemetry/api` for the server's processes, when it is installed (an optional peer
 * dependency): the entry points hand it to the app and the delivery engine, so an SDK the
 * operator registers before the server starts (`node --import ./tracing.mjs`) records their
 * spans. Without an SDK the API's tracer records nothing; without the package, no spans.
 */
import type { OpenTelemetryApi } from '@session-resume-api/runtime/tracing';

let loaded: Promise<OpenTelemetryApi | undefined> | undefined;

const isMissing = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
};

/** The installed `@opentelemetry/api`, or undefined when it is not installed; loaded once per process. */
export function loadOpenTelemetry(): Promise<OpenTelemetryApi | undefined> {
  loaded ??= import('@opentelemetry/api').then(
    (api): OpenTelemetryApi => api,
    (error: unknown) => {
      if (isMissing(error)) return undefined;
      throw error;
    },
  );
  return loaded;
}
