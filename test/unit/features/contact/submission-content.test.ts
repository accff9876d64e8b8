import { describe, expect, it } from 'vitest';
import { sameContent, submissionContent } from '../../../../src/features/contact/submission-content.ts';

describe('stored content', () => {
  it('stores blank optional fields as null and compares retries field by field', () => {
    const a = submissionContent({ name: 'Ada', work_email: 'ada@example.com', priority: 'high', job_title: '' });
    expect(a).toEqual({ name: 'Ada', job_title: null, work_email: 'ada@example.com', priority: 'high', message: null });
    expect(sameContent(a, { ...a })).toBe(true);
    expect(sameContent(a, { ...a, message: 'hi' })).toBe(false);
  });

});
