/**
 * What the guides' commands write into a checkout is ignored by git: first-hour (`leftovers`)
 * fails on any file they leave that git would offer to commit.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { leftovers } from '../../../scripts/first-hour.ts';

const repo = mkdtempSync(join(tmpdir(), 'first-hour-gitignore-'));
afterAll(() => rmSync(repo, { recursive: true, force: true }));

describe('leftovers', () => {
  it('finds none of the files the guides write (a second build, nginx.conf, contacts.csv, stats.csv), and names any other', () => {
    execFileSync('git', ['init', '--quiet', repo]);
    copyFileSync(resolve(import.meta.dirname, '../../../.gitignore'), join(repo, '.gitignore'));
    execFileSync('git', ['-C', repo, 'add', '.gitignore']);
    mkdirSync(join(repo, 'dist-2', 'client'), { recursive: true });
    writeFileSync(join(repo, 'dist-2', 'client', 'index.html'), '<!doctype html>');
    writeFileSync(join(repo, 'nginx.conf'), '# rendered');
    writeFileSync(join(repo, 'contacts.csv'), 'id,name\n');
    writeFileSync(join(repo, 'stats.csv'), 'day,transactions\n');
    writeFileSync(join(repo, 'events.ndjson'), '{}\n'); // written by first-hour itself
    expect(leftovers(repo)).toEqual([]);
    writeFileSync(join(repo, 'notes.txt'), 'mine');
    expect(leftovers(repo)).toEqual(['notes.txt']);
  });
});
