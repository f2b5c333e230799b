/**
 * makeDirectorySync against the paths on which Node's recursive mkdir never returns (under /proc, below a
 * dangling link): each must fail at once with the system's reason, naming the path.
 */
import { mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirectorySync } from './make-directory.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'aisle-mkdir-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('makeDirectorySync', () => {
  it('creates missing parents and accepts an existing directory', () => {
    const deep = path.join(tmp, 'a', 'b', 'c');
    makeDirectorySync(deep);
    makeDirectorySync(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
  });

  it.runIf(process.platform === 'linux')('fails on a path under /proc instead of spinning', () => {
    expect(() => makeDirectorySync('/proc/aisle-no-such/catalogs')).toThrow(/ENOENT.*\/proc\/aisle-no-such/);
  });

  it('fails below a dangling link and below a file', () => {
    const link = path.join(tmp, 'dangling');
    symlinkSync(path.join(tmp, 'nowhere'), link);
    expect(() => makeDirectorySync(path.join(link, 'x'))).toThrow(/EEXIST.*dangling/);
    const file = path.join(tmp, 'a-file');
    writeFileSync(file, '');
    expect(() => makeDirectorySync(path.join(file, 'x'))).toThrow(/ENOTDIR/);
  });
});
