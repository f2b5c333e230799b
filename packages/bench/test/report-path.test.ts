import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportPath } from '../src/report-path.js';

const ROOT = '/repo';

describe('reportPath', () => {
  it('a full run writes docs/benchmarks.md', () => {
    expect(reportPath({ quick: false, writeDocs: false }, ROOT)).toBe(resolve(ROOT, 'docs/benchmarks.md'));
  });

  it('a quick run writes a new file in a temporary directory', () => {
    const file = reportPath({ quick: true, writeDocs: false }, ROOT);
    try {
      expect(file.startsWith(tmpdir())).toBe(true);
      expect(file).not.toBe(resolve(ROOT, 'docs/benchmarks.md'));
      expect(existsSync(dirname(file))).toBe(true);
      const second = reportPath({ quick: true, writeDocs: false }, ROOT);
      rmSync(dirname(second), { recursive: true, force: true });
      expect(second).not.toBe(file);
    } finally {
      rmSync(dirname(file), { recursive: true, force: true });
    }
  });

  it('a quick run overwrites docs/benchmarks.md only when asked with --write-docs', () => {
    expect(reportPath({ quick: true, writeDocs: true }, ROOT)).toBe(resolve(ROOT, 'docs/benchmarks.md'));
  });

  it('--out names the file in every mode', () => {
    const out = join(tmpdir(), 'x', 'b.md');
    expect(reportPath({ quick: true, writeDocs: false, out }, ROOT)).toBe(out);
    expect(reportPath({ quick: false, writeDocs: false, out }, ROOT)).toBe(out);
  });
});
