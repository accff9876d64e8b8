import { describe, expect, it } from 'vitest';
import { credentialsOf, hashToken, newToken, shownPrefix } from '../../../../src/features/apikeys/api-key.ts';

describe('API key tokens', () => {
  it('are adk_ and 256 random bits in base64url, never twice the same', () => {
    const a = newToken();
    expect(a).toMatch(/^adk_[A-Za-z0-9_-]{43}$/);
    expect(newToken()).not.toBe(a);
    expect(shownPrefix(a)).toBe(a.slice(0, 8));
  });

  it('are stored as their SHA-256 in hex', () => {
    const token = newToken();
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).not.toContain(token.slice(4));
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('credentialsOf', () => {
  const token = newToken();

  it('is anonymous without an Authorization header', () => {
    expect(credentialsOf({})).toEqual({ kind: 'none' });
  });

  it('reads a Bearer token, scheme in any case (RFC 9110 section 11.1)', () => {
    expect(credentialsOf({ authorization: `Bearer ${token}` })).toEqual({ kind: 'bearer', token });
    expect(credentialsOf({ authorization: `bearer  ${token}` })).toEqual({ kind: 'bearer', token });
  });

  it('calls anything else malformed: another scheme, another shape, an empty token', () => {
    for (const authorization of [`Basic ${token}`, 'Bearer', 'Bearer ', `Bearer ${token}x`, `Bearer ${token} extra`, 'Bearer abc', `Token ${token}`]) {
      expect(credentialsOf({ authorization }), authorization).toEqual({ kind: 'malformed', problem: expect.any(String) });
    }
  });

  it('says what is wrong with a malformed header, never quoting the credentials', () => {
    const problems = Object.fromEntries(
      [
        ['another scheme', 'Basic dXNlcjpwYXNz'],
        ['the key alone', token],
        ['no scheme', 'secret-value-1'],
        ['nothing after Bearer', 'Bearer'],
        ['two words', `Bearer ${token} extra`],
        ['not our key', 'Bearer sk-secret-value-1'],
        ['a stray character', `Bearer ${token.slice(0, -1)}=`],
        ['cut short', `Bearer ${token.slice(0, -3)}`],
        ['joined to more', `Bearer ${token}x`],
      ].map(([name, authorization]) => {
        const credentials = credentialsOf({ authorization });
        const problem = credentials.kind === 'malformed' ? credentials.problem : credentials.kind;
        expect(problem, name).not.toContain('secret');
        expect(problem, name).not.toContain(token.slice(4, 12));
        return [name, problem];
      }),
    );
    expect(problems).toMatchInlineSnapshot(`
      {
        "a stray character": "the key holds a character outside base64url",
        "another scheme": "it uses the Basic scheme, not Bearer",
        "cut short": "the key is 44 characters long, not 47 (cut short, or joined to other text?)",
        "joined to more": "the key is 48 characters long, not 47 (cut short, or joined to other text?)",
        "no scheme": "it does not start with the Bearer scheme",
        "not our key": "the token after Bearer does not start with adk_, so it is not one of our API keys",
        "nothing after Bearer": "it has no key after Bearer",
        "the key alone": "it holds a key without "Bearer " before it",
        "two words": "it has more than one word after Bearer",
      }
    `);
  });
});
