import { describe, expect, it } from 'vitest';
import { spamHeuristic } from '../../../../src/features/contact/spam.ts';

const person = { name: 'Ada Lovelace', job_title: 'Analyst', message: 'Please see https://example.com/rate-card and www.example.org.' };

describe('the spam heuristics', () => {
  it('let an ordinary message through, links and all', () => {
    expect(spamHeuristic(person)).toBeUndefined();
    expect(spamHeuristic({ ...person, job_title: null, message: null })).toBeUndefined();
    expect(spamHeuristic({ ...person, message: 'a https://1 b https://2 c https://3' })).toBeUndefined();
  });

  it.each([
    [{ name: 'Cheap pills https://spam.example' }, 'heuristic: a link in the name or job title'],
    [{ name: 'Visit www.spam.example' }, 'heuristic: a link in the name or job title'],
    [{ job_title: 'CEO of http://spam.example' }, 'heuristic: a link in the name or job title'],
    [{ message: 'Buy [url=https://spam.example]now[/url]' }, 'heuristic: link markup in the message'],
    [{ message: 'Buy <a href="https://spam.example">now</a>' }, 'heuristic: link markup in the message'],
    [{ message: 'http://a.example http://b.example https://c.example www.d-example.com' }, 'heuristic: 4 links in the message (more than 3)'],
  ])('judge %j as spam', (change, reason) => {
    expect(spamHeuristic({ ...person, ...change })).toEqual({ kind: 'heuristic', reason });
    // The same verdict twice in a row: the patterns keep no state between calls.
    expect(spamHeuristic({ ...person, ...change })).toEqual({ kind: 'heuristic', reason });
  });
});
