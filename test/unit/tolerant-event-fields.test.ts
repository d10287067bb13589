/** readEventTolerantly (client/webhooks/tolerant-event.ts) never replaces a field as sent. */
import { describe, expect, it } from 'vitest';
import { readEventTolerantly } from '../../client/webhooks/tolerant-event.js';

describe('readEventTolerantly', () => {
  it('keeps an empty event as sent rather than filling it from status', () => {
    const reading = readEventTolerantly({ event: '', status: 'done', session_id: 'sess_1' });
    expect(reading).toEqual({ ok: true, event: { event: '', status: 'done', session_id: 'sess_1', session: { id: 'sess_1' } } });
  });
});
