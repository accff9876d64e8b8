import { describe, expect, it } from 'vitest';
import { isHoneypotFilled } from '../../../../src/features/contact/honeypot.ts';

describe('honeypot', () => {
  it.each([
    [{}, false],
    [{ website: '' }, false],
    [{ website: '   ' }, false],
    [{ website: null }, false],
    [{ website: 'http://spam.example' }, true],
    [{ website: 0 }, true],
    [{ website: false }, true],
    [{ website: [] }, true],
  ])('%j is filled: %s', (body, filled) => {
    expect(isHoneypotFilled(body)).toBe(filled);
  });
});
