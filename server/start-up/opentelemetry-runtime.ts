/**
 * `@opentelemetry/api` when installed (optional peer): handed to the app and the delivery engine, so
 * an SDK registered before start (`node --import ./tracing.mjs`) records their spans.
 */
import type { OpenTelemetryApi } from '@session-resume-api/runtime/tracing';

let loaded: Promise<OpenTelemetryApi | undefined> | undefined;

const isMissing = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
};

/** The installed `@opentelemetry/api`, or undefined; loaded once per process. */
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
