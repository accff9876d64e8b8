import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { IdempotencyKey, parseIdempotencyKey } from '../../../../src/features/contact/idempotency-key.ts';

describe('Idempotency-Key header', () => {
  it('is optional', () => {
    expect(parseIdempotencyKey(null)).toEqual({ ok: true, key: undefined });
  });

  it('takes a bare or a quoted (structured-field string) key', () => {
    expect(parseIdempotencyKey('8e03978e-40d5-43e8-bc93-6894a57f9324')).toEqual({ ok: true, key: '8e03978e-40d5-43e8-bc93-6894a57f9324' });
    expect(parseIdempotencyKey('"8e03978e"')).toEqual({ ok: true, key: '8e03978e' });
  });

  it.each([[''], ['""'], ['   '], ['k'.repeat(256)], ['caf\u00e9'], ['a\u0001b']])('refuses %j', (header) => {
    expect(parseIdempotencyKey(header)).toMatchObject({ ok: false, error: { field: 'Idempotency-Key' } });
  });

  it('publishes the rule it enforces as the IdempotencyKey schema', () => {
    const schema = z.toJSONSchema(IdempotencyKey) as { pattern: string; minLength: number; maxLength: number };
    expect(schema).toMatchObject({ minLength: 1, maxLength: 255 });
    for (const key of ['', ' ', 'a', 'a b', ' a', 'a ', 'k'.repeat(255), 'k'.repeat(256), 'caf\u00e9', 'a\u0001b', '8e03978e-40d5-43e8-bc93-6894a57f9324']) {
      const documented = key.length >= schema.minLength && key.length <= schema.maxLength && new RegExp(schema.pattern, 'u').test(key);
      expect([key, documented]).toEqual([key, IdempotencyKey.safeParse(key).success]);
    }
  });
});
