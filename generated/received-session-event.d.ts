// The type of generated/received-session-event.js (Ajv standalone code of components.schemas.ReceivedSessionEvent).
import type { ErrorObject } from 'ajv';

/** Ajv's standalone validator: true when `data` is a ReceivedSessionEvent; otherwise `errors` says why. */
export interface StandaloneValidate {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

export declare const validate: StandaloneValidate;
export default validate;
