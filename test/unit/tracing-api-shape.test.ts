import * as opentelemetry from '@opentelemetry/api';
import { expect, test } from 'vitest';
import type { OpenTelemetryApi } from '@session-resume-api/runtime/tracing';

test('the @opentelemetry/api module is an OpenTelemetryApi as it is', () => {
  const api: OpenTelemetryApi = opentelemetry;
  expect(typeof api.trace.getTracer).toBe('function');
});
