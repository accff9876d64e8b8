import { describe, expect, it } from 'vitest';
import { contactDelivery } from '../../../../src/features/contact/contact-delivery.ts';

describe('the webhook delivery', () => {
  it('describes a submission to the webhook with an RFC 3339 time', () => {
    const delivery = contactDelivery({ id: 7, created_at: Date.UTC(2025, 0, 2, 3, 4, 5), name: 'Ada', job_title: null, work_email: 'ada@example.com', priority: 'message', message: null });
    expect(delivery).toEqual({
      type: 'contact_submission',
      id: 7,
      submitted_at: '2025-01-02T03:04:05.000Z',
      name: 'Ada',
      job_title: null,
      work_email: 'ada@example.com',
      priority: 'message',
      message: null,
    });
  });
});
