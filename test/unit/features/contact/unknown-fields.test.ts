import { describe, expect, it } from 'vitest';
import { nearestField, unknownFieldErrors } from '../../../../src/features/contact/unknown-fields.ts';

const FIELDS = ['name', 'job_title', 'work_email', 'priority', 'message'];

describe('nearestField', () => {
  it('finds the field a misspelling meant: a letter missing, swapped, doubled, or another case or separator', () => {
    expect(['mesage', 'nmae', 'priorty', 'work-email', 'workemail', 'Job_Title', 'messagee', 'prioirty'].map((key) => nearestField(key, FIELDS))).toEqual([
      'message',
      'name',
      'priority',
      'work_email',
      'work_email',
      'job_title',
      'message',
      'priority',
    ]);
  });

  it('finds none for a word that is no near miss', () => {
    expect(['email', 'company', 'x', 'body', 'title'].map((key) => nearestField(key, FIELDS))).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });
});

describe('unknownFieldErrors', () => {
  it('names at most five unknown members and counts the rest in one more entry', () => {
    const body = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`extra${i}`, i]));
    const errors = unknownFieldErrors({ name: 'Ada', ...body }, FIELDS, []);
    expect(errors.map((e) => e.field)).toEqual(['extra0', 'extra1', 'extra2', 'extra3', 'extra4', '']);
    expect(errors.at(-1)!.message).toBe('3 more unknown fields.');
  });

  it('shortens a long member name and accepts the members named beside the fields', () => {
    const long = 'k'.repeat(5_000);
    const errors = unknownFieldErrors({ [long]: 1, website: '', altcha: 'x' }, FIELDS, ['website', 'altcha']);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.field).toBe(`${'k'.repeat(40)}…`);
  });
});
