import { describe, expect, it } from 'vitest';
import { cacheControlFor } from '../../../src/server/static-manifest.ts';

describe('static file helpers', () => {
  it('gives hashed assets a year, pages revalidation, and the read APIs short lifetimes', () => {
    expect(cacheControlFor('/_astro/app.Ab12.js')).toBe('public, max-age=31536000, immutable');
    expect(cacheControlFor('/news/index.html')).toBe('public, max-age=0, must-revalidate');
    expect(cacheControlFor('/sellers.json')).toBe('public, max-age=3600, s-maxage=3600');
    expect(cacheControlFor('/api/news')).toMatch(/^public, max-age=60/);
  });
});
