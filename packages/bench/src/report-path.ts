/**
 * Where a benchmark run writes its report.
 * @module
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The report file: `--out` as given; else docs/benchmarks.md for a full run or with `--write-docs`; else
 * (a quick run) a new file in a temporary directory, so a quick run never overwrites the published figures.
 */
export function reportPath(options: { quick: boolean; writeDocs: boolean; out?: string }, repoRoot: string): string {
  if (options.out !== undefined) return resolve(options.out);
  if (!options.quick || options.writeDocs) return resolve(repoRoot, 'docs/benchmarks.md');
  return join(mkdtempSync(join(tmpdir(), 'aisle-bench-')), 'benchmarks.md');
}
