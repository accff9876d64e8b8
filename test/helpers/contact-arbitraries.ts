/** fast-check generators for what a client might send to `POST /api/contact`. */
import fc from 'fast-check';
import { PRIORITIES } from '../../src/features/contact/contact-payload.ts';

/** Any JSON value, a few levels deep. */
export const anyValue = fc.jsonValue({ maxDepth: 3 });

/** Objects shaped like the form, each member sometimes right and sometimes anything. */
export const contactLike = fc.record(
  {
    name: fc.oneof(fc.string({ maxLength: 250 }), anyValue),
    job_title: fc.oneof(fc.string({ maxLength: 250 }), anyValue),
    work_email: fc.oneof(fc.emailAddress(), fc.string(), anyValue),
    priority: fc.oneof(fc.constantFrom(...PRIORITIES), fc.string(), anyValue),
    message: fc.oneof(fc.string({ maxLength: 6000 }), anyValue),
    website: fc.oneof(fc.constant(''), fc.string({ maxLength: 5 }), anyValue),
    extra: anyValue,
  },
  { requiredKeys: [] },
);
