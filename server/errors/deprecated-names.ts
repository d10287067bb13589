/**
 * Names this package exported before its option errors became one class, kept working until the
 * next major version: each is `OptionsError` itself, so `instanceof` still holds (and now also
 * holds for the option errors the others did not cover).
 */
import { OptionsError } from '@session-resume-api/runtime/options-error';

/** @deprecated Catch `OptionsError` (`option` names the dependency of `createApp`). Removed in the next major version. */
export const AppOptionsError: typeof OptionsError = OptionsError;
/** @deprecated `OptionsError`. Removed in the next major version. */
export type AppOptionsError = OptionsError;
/** @deprecated Catch `OptionsError` (`option` names the delivery option). Removed in the next major version. */
export const DeliveryConfigError: typeof OptionsError = OptionsError;
/** @deprecated `OptionsError`. Removed in the next major version. */
export type DeliveryConfigError = OptionsError;
/** @deprecated Catch `OptionsError` (a Redis target that cannot work). Removed in the next major version. */
export const RedisTargetError: typeof OptionsError = OptionsError;
/** @deprecated `OptionsError`. Removed in the next major version. */
export type RedisTargetError = OptionsError;
