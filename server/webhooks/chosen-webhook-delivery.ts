/**
 * The one delivery of `createApp` and `createSandbox`, whose option had an earlier name: a
 * caller may still give `webhookSender`, never both names.
 */
import { OptionsError } from '@session-resume-api/runtime/options-error';
import type { WebhookDelivery } from './webhook-delivery.js';

/** Where a `WebhookDelivery` is given: under its name, or under the deprecated `webhookSender`. */
export interface WebhookDeliveryChoice {
  webhookDelivery?: WebhookDelivery | undefined;
  /** @deprecated Use `webhookDelivery`. */
  webhookSender?: WebhookDelivery | undefined;
}

/**
 * The delivery given under either name; refuses both at once, since which one counts would be a
 * guess.
 * @example const delivery = chosenWebhookDelivery(deps, 'createApp: deps');
 */
export function chosenWebhookDelivery(given: WebhookDeliveryChoice, where: string): WebhookDelivery | undefined {
  if (given.webhookDelivery !== undefined && given.webhookSender !== undefined) {
    throw new OptionsError(`${where}.webhookDelivery and ${where}.webhookSender are both given: pass only webhookDelivery (webhookSender is its deprecated name).`, {
      option: 'webhookDelivery',
    });
  }
  return given.webhookDelivery ?? given.webhookSender;
}
