import { describe, expect, it } from 'vitest';
import { CONTACT_LIMITS } from '../../../../src/features/contact/contact-limits.ts';
import { PATHS } from '../../../../src/lib/paths.ts';
import { routeOf } from '../../../../src/server/routes.ts';

describe('CONTACT_LIMITS', () => {
  it('documents the byte limit the route table enforces', () => {
    expect(CONTACT_LIMITS.bodyBytes).toBe(routeOf(PATHS.contact).bodyLimit);
  });
});
