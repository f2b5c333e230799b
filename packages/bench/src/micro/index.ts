/**
 * The micro-benchmark suite: one file per hot function (named after it), run with tinybench in a
 * child process of its own.
 * @module
 */
import { runInChild } from '../child-process.js';
import { ms } from '../stats.js';
import type { MicroInput, MicroOutput } from './child.js';

export async function runMicroSuite(options: { timeMs: number; products: number; log: (line: string) => void }): Promise<string> {
  const output = await runInChild<MicroInput, MicroOutput>('micro/child', { timeMs: options.timeMs, products: options.products }, { timeoutMs: 600_000 });
  const lines = [
    '## Micro-benchmarks (tinybench)',
    '',
    `One file per hot function in \`packages/bench/src/micro/\`, named after it; a generated catalog of ${options.products.toLocaleString('en-US')} products; each task timed for ${options.timeMs} ms after a warm-up (at least 5 iterations). Mean, median and p99 per iteration; ops/s = 1000 / mean.`,
    '',
    '| file | function | iteration | ops/s | mean ms | median ms | p99 ms |',
    '|---|---|---|---:|---:|---:|---:|',
  ];
  for (const r of output.rows) {
    lines.push(`| ${r.file}.ts | \`${r.measures}\` | ${r.name} | ${r.opsPerSecond >= 100 ? Math.round(r.opsPerSecond).toLocaleString('en-US') : r.opsPerSecond.toFixed(1)} | ${ms(r.meanMs)} | ${ms(r.medianMs)} | ${ms(r.p99Ms)} |`);
    options.log(`  ${r.file}: ${r.name}: ${ms(r.meanMs)} ms`);
  }
  if (output.skipped.length) {
    lines.push('', 'Not measured in this run:', '');
    for (const s of output.skipped) lines.push(`- ${s.file}: ${s.reason}`);
  }
  lines.push('');
  return lines.join('\n');
}
