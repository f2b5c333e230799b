/**
 * The records a load skipped (`onError: 'skip'`): all counted, the first few kept with their
 * messages, so the summary of a feed with a million bad records stays small.
 * @module
 */
import { MAX_REPORTED_SKIPS, type SkippedLine } from '../../engine-api.js';

/** Collects skipped records for a {@link LoadSummary}. */
export class SkipReport {
  /** Every record skipped. */
  count = 0;
  /** The first {@link MAX_REPORTED_SKIPS} of them, in line order. */
  readonly first: SkippedLine[] = [];

  /**
   * Counts a skipped record. Records come in line order while a feed is read; those skipped by a later
   * check of the read products (pinned field types) arrive after: kept in line order all the same.
   */
  add(line: SkippedLine): void {
    this.count++;
    const first = this.first;
    if (first.length === MAX_REPORTED_SKIPS && line.line >= first[first.length - 1]!.line) return;
    let at = first.length;
    while (at > 0 && first[at - 1]!.line > line.line) at--;
    first.splice(at, 0, line);
    if (first.length > MAX_REPORTED_SKIPS) first.pop();
  }
}

/**
 * A summary that also counts the records skipped before it was made (while reading): their messages
 * go first in line order, still at most {@link MAX_REPORTED_SKIPS} of them.
 */
export function withEarlierSkips<S extends { skipped: SkippedLine[]; skippedCount: number }>(summary: S, earlier: SkipReport): S {
  if (earlier.count === 0) return summary;
  const skipped = [...earlier.first, ...summary.skipped].sort((a, b) => a.line - b.line).slice(0, MAX_REPORTED_SKIPS);
  return { ...summary, skipped, skippedCount: earlier.count + summary.skippedCount };
}
