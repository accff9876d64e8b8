import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_EXACT_CENTS, amountToCents, centsToAmount } from '../../../../src/features/stats/money.ts';

describe('money', () => {
  it('prints cents as the exact decimal amount', () => {
    expect(JSON.stringify(centsToAmount(1_234_567))).toBe('12345.67');
    expect(JSON.stringify(centsToAmount(30))).toBe('0.3');
    expect(JSON.stringify(centsToAmount(10 + 20))).not.toBe(JSON.stringify(0.1 + 0.2));
    expect(JSON.stringify(centsToAmount(5))).toBe('0.05');
    expect(JSON.stringify(centsToAmount(100))).toBe('1');
    expect(JSON.stringify(centsToAmount(0))).toBe('0');
    expect(JSON.stringify(centsToAmount(-1_999))).toBe('-19.99');
  });

  it('serialises every cent amount to its shortest exact decimal', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_EXACT_CENTS }), (cents) => {
        const expected = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`.replace(/\.?0+$/, '');
        expect(JSON.stringify(centsToAmount(cents))).toBe(expected === '' ? '0' : expected);
      }),
    );
  });

  it('gives the double the decimal text reads as, for every amount up to 20,000.00 and at random beyond', () => {
    const decimal = (cents: number) => Number(`${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`);
    for (let cents = -2_000_000; cents <= 2_000_000; cents++) {
      if (centsToAmount(cents) !== decimal(cents)) expect(centsToAmount(cents)).toBe(decimal(cents));
    }
    fc.assert(fc.property(fc.integer({ min: -MAX_EXACT_CENTS, max: MAX_EXACT_CENTS }), (cents) => {
      expect(centsToAmount(cents)).toBe(decimal(cents));
    }));
    expect(Object.is(centsToAmount(-0), 0)).toBe(true);
  });

  it('refuses cents it cannot print exactly (fractions, more than 15 digits)', () => {
    expect(() => centsToAmount(0.5)).toThrow(RangeError);
    expect(() => centsToAmount(MAX_EXACT_CENTS + 1)).toThrow(RangeError);
    expect(JSON.stringify(centsToAmount(MAX_EXACT_CENTS))).toBe('9999999999999.99');
  });

  it('parses decimal amounts to cents exactly', () => {
    expect(amountToCents('12.34')).toEqual({ ok: true, cents: 1_234 });
    expect(amountToCents('0.1')).toEqual({ ok: true, cents: 10 });
    expect(amountToCents(0.1)).toEqual({ ok: true, cents: 10 });
    expect(amountToCents(0.29)).toEqual({ ok: true, cents: 29 }); // 0.29 * 100 is 28.999999999999996
    expect(amountToCents(' 7 ')).toEqual({ ok: true, cents: 700 });
    expect(amountToCents('-0')).toEqual({ ok: true, cents: 0 });
    expect(amountToCents('-1.5')).toEqual({ ok: true, cents: -150 });
    expect(amountToCents('9999999999999.99')).toEqual({ ok: true, cents: 999_999_999_999_999 });
  });

  it('refuses more than two decimals, huge amounts and non-numbers with a reason', () => {
    expect(amountToCents('1.234')).toEqual({ ok: false, reason: '1.234 has more than 2 decimals' });
    expect(amountToCents(0.105)).toEqual({ ok: false, reason: '0.105 has more than 2 decimals' });
    expect(amountToCents('12345678901234')).toEqual({ ok: false, reason: '12345678901234 is too large (at most 13 digits before the decimal point)' });
    expect(amountToCents('1e3')).toEqual({ ok: false, reason: '"1e3" is not a decimal amount such as 12.34' });
    expect(amountToCents('1,50')).toEqual({ ok: false, reason: '"1,50" is not a decimal amount such as 12.34' });
    expect(amountToCents('')).toEqual({ ok: false, reason: '"" is not a decimal amount such as 12.34' });
    expect(amountToCents(Number.NaN)).toEqual({ ok: false, reason: 'NaN is not a finite amount' });
    expect(amountToCents(1e21).ok).toBe(false);
  });

  it('round-trips any two-decimal amount through cents', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999_999 }), (cents) => {
        const text = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
        expect(amountToCents(text)).toEqual({ ok: true, cents });
        expect(amountToCents(centsToAmount(cents))).toEqual({ ok: true, cents });
      }),
    );
  });
});
