/**
 * Names this subpath exported before its option errors became one class, kept working until the
 * next major version: each is `OptionsError` itself, so `instanceof` still holds.
 */
import { OptionsError } from '@session-resume-api/runtime/options-error';

/**
 * @deprecated Catch `OptionsError` and read `option` (`'dedupeWindowSeconds'` for a dedupe window
 * shorter than the signature tolerance). Removed in the next major version.
 */
export const DedupeWindowError: typeof OptionsError = OptionsError;
/** @deprecated `OptionsError`. Removed in the next major version. */
export type DedupeWindowError = OptionsError;
