/**
 * The sections of a benchmark report that other commands own. docs/benchmarks.md holds the figures of
 * the main run (`run.ts`) and, after them, sections written by the standalone commands (ingestion,
 * replicas, change visibility, memory, …), each naming its own command and date. A main run rewrites
 * its own sections and keeps the others, so a full run never erases figures it does not measure.
 * @module
 */

/** A level-2 section of a Markdown report: its heading text and its whole text (heading included). */
interface Section { heading: string; text: string }

/** Splits Markdown into its level-2 sections (what precedes the first `## ` is not a section). Pure. */
function sectionsOf(markdown: string): Section[] {
  const sections: Section[] = [];
  let current: string[] | undefined;
  const flush = (): void => {
    if (current) sections.push({ heading: current[0]!.slice(3).trim(), text: current.join('\n').trimEnd() });
  };
  for (const line of markdown.split('\n')) {
    if (line.startsWith('## ')) {
      flush();
      current = [line];
    } else current?.push(line);
  }
  flush();
  return sections;
}

/**
 * `report` followed by the sections of `previous` whose heading `report` does not have, in their
 * previous order. Pure.
 */
export function withKeptSections(report: string, previous: string | undefined): string {
  if (previous === undefined) return report;
  const produced = new Set(sectionsOf(report).map((s) => s.heading));
  const kept = sectionsOf(previous).filter((s) => !produced.has(s.heading));
  if (kept.length === 0) return report;
  return `${report.trimEnd()}\n\n${kept.map((s) => s.text).join('\n\n')}\n`;
}
