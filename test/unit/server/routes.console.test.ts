/** The console in the route table: its passkey endpoints spend the sign-in class; its pages never enter the response cache. */
import { describe, expect, it } from 'vitest';
import { PATHS } from '../../../src/lib/paths.ts';
import { cacheKeyOf, routeOf } from '../../../src/server/routes.ts';

describe('the console routes', () => {
  it('binds each console POST to its endpoint; the passkey ones spend the sign-in class', () => {
    for (const path of [PATHS.consoleSignInOptions, PATHS.consoleSignIn, PATHS.consoleEnrolOptions, PATHS.consoleEnrol]) {
      const route = routeOf(path);
      expect(route.endpoint, path).toBeTypeOf('function');
      expect(route.rate('POST'), path).toBe('sign-in');
    }
    for (const path of [PATHS.consoleSignOut, PATHS.consoleAction]) {
      expect(routeOf(path).endpoint, path).toBeTypeOf('function');
      expect(routeOf(path).rate('POST'), path).toBe('site');
    }
  });

  it('never caches a console page, whatever its path or query', () => {
    for (const path of ['/admin', '/admin/', '/admin/keys/', '/admin/submissions/1/', '/admin/audit/']) {
      const route = routeOf(path);
      expect(route.kind, path).toBe('page');
      expect(cacheKeyOf(route, path, new URLSearchParams('q=ada')), path).toBeUndefined();
    }
    // Other pages still are.
    expect(cacheKeyOf(routeOf('/news/'), '/news/', new URLSearchParams())).toBe('/news/');
    expect(routeOf('/administrator').kind).toBe('page');
    expect(cacheKeyOf(routeOf('/administrator'), '/administrator', new URLSearchParams())).toBe('/administrator');
  });
});
