import { describe, expect, it } from 'vitest';
import { withKeptSections } from './report-sections.js';

describe('withKeptSections', () => {
  const previous = '# Benchmarks\n\nintro\n\n## Run\n\nold run\n\n## Purchase ingestion\n\ningest figures\n| a |\n\n## Replicas\n\nreplica figures\n';
  it('keeps the sections the new report does not write, after it, and drops the ones it rewrites', () => {
    const report = '# Benchmarks\n\nnew intro\n\n## Run\n\nnew run\n';
    expect(withKeptSections(report, previous)).toBe(
      '# Benchmarks\n\nnew intro\n\n## Run\n\nnew run\n\n## Purchase ingestion\n\ningest figures\n| a |\n\n## Replicas\n\nreplica figures\n');
  });
  it('a report that writes every section, or no previous file, is left as it is', () => {
    const report = '# B\n\n## Run\n\nx\n\n## Purchase ingestion\n\ny\n\n## Replicas\n\nz\n';
    expect(withKeptSections(report, previous)).toBe(report);
    expect(withKeptSections(report, undefined)).toBe(report);
  });
});
