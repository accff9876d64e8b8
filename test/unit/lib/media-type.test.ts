import { describe, expect, it } from 'vitest';
import { declaresForeignCharset, isJsonMediaType } from '../../../src/lib/media-type.ts';

describe('content type', () => {
  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['APPLICATION/JSON ;charset=UTF-8', true],
    ['application/problem+json', true],
    ['application/vnd.api+json', true],
    ['text/json', false],
    ['text/plain', false],
    ['application/jsonx', false],
    ['application/x-www-form-urlencoded', false],
    ['', false],
  ])('%j is JSON: %s', (type, expected) => {
    expect(isJsonMediaType(type)).toBe(expected);
  });

  it('notices a declared charset other than UTF-8', () => {
    expect(declaresForeignCharset('application/json; charset=iso-8859-1')).toBe(true);
    expect(declaresForeignCharset('application/json; charset="latin1"')).toBe(true);
    expect(declaresForeignCharset('application/json; charset=utf-16')).toBe(true);
    expect(declaresForeignCharset('application/json; charset=')).toBe(true);
    expect(declaresForeignCharset('application/json; charset=UTF-8')).toBe(false);
    expect(declaresForeignCharset('application/json; charset=utf8')).toBe(false);
    expect(declaresForeignCharset('application/json')).toBe(false);
    expect(declaresForeignCharset(null)).toBe(false);
  });
});
