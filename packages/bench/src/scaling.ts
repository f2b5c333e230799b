/**
 * How aisle scales: latency and memory at growing catalog sizes, with 1 and 2 search workers (the
 * engine fans a search out over its worker pool from its pool threshold on; below it, searches run
 * inline whatever the worker count). Each point is its own child process. Writes an SVG plot beside
 * the report.
 * @module
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInChild } from './child-process.js';
import { loadDataset } from './datasets.js';
import type { PeerRunInput, PeerRunResult } from './peers/child.js';
import { mb, ms } from './stats.js';
import { formatCount, REQUEST_LABELS, REQUEST_TYPES, type RequestType } from './types.js';
import { buildWarmupWorkload, buildWorkload } from './workloads/index.js';

interface Point {
  size: number;
  workers: number;
  result?: PeerRunResult;
  error?: string;
}

/** Untimed warm-up queries per request type at each point (as the peer comparison warms every engine). */
const SCALING_WARMUP = 20;

const PLOTTED: RequestType[] = ['text', 'text_facets', 'browse'];
const COLOURS: Record<string, string> = { text: '#1f77b4', text_facets: '#d62728', text_scope: '#9467bd', browse: '#2ca02c', multi_sort: '#ff7f0e' };

export interface ScalingOptions {
  sizes: number[];
  queries: number;
  log: (line: string) => void;
  outDir: string;
  quick: boolean;
  workers?: number[];
  /** Runs already made (the peer comparisons' aisle rows, same queries): reused instead of repeated. */
  reuse?: { size: number; workers: number; result: PeerRunResult }[];
  /** Milliseconds left in the run's time budget. */
  remainingMs?: () => number;
}

export async function runScaling(options: ScalingOptions): Promise<string> {
  const workerCounts = options.workers ?? [1, 2];
  const sample = await loadDataset({ kind: 'generated', count: Math.max(...options.sizes), seed: 1 }, 20_000);
  // The peer comparisons' queries (same seed and sample), so their aisle rows can stand in here.
  const workload = buildWorkload(sample, options.queries);
  const warmupWorkload = buildWarmupWorkload(sample, SCALING_WARMUP);
  const points: Point[] = [];
  const remaining = options.remainingMs ?? (() => Infinity);
  for (const size of options.sizes) {
    for (const workers of workerCounts) {
      const reused = options.reuse?.find((r) => r.size === size && r.workers === workers);
      if (reused) {
        points.push({ size, workers, result: reused.result });
        options.log(`  ${formatCount(size)} / ${workers} worker(s): reused from the peer comparison`);
        continue;
      }
      // Roughly what a point costs on this kind of machine (generation + build + queries), so a point
      // that cannot finish within the budget is not started.
      if (remaining() < 40_000 + (size / 1_000_000) * 120_000) {
        points.push({ size, workers, error: 'skipped: the run\'s time budget was used up' });
        continue;
      }
      const input: PeerRunInput = {
        engine: 'aisle', workers, dataset: { kind: 'generated', count: size, seed: 1 }, workload,
        maxQueries: options.queries, budgetMs: options.quick ? 2_000 : 5_000, warmupWorkload, warmupMs: 2_000, checkSample: 0,
      };
      try {
        const result = await runInChild<PeerRunInput, PeerRunResult>('peers/child', input, { timeoutMs: Math.min(600_000, remaining() - 20_000) });
        points.push({ size, workers, result });
        options.log(`  ${formatCount(size)} / ${workers} worker(s): build ${(result.buildMs / 1000).toFixed(1)} s, ${mb(result.memoryBytes)} MB, text_facets ${ms(result.latency.text_facets?.median)} ms`);
      } catch (err) {
        points.push({ size, workers, error: err instanceof Error ? err.message : String(err) });
        options.log(`  ${formatCount(size)} / ${workers} worker(s): FAILED ${String(err)}`);
      }
    }
  }
  const svgName = options.quick ? 'benchmarks-scaling-quick.svg' : 'benchmarks-scaling.svg';
  writeFileSync(join(options.outDir, svgName), scalingSvg(points, workerCounts));
  const lines = [
    '## Scaling (aisle)',
    '',
    `Generated catalogs of ${options.sizes.map(formatCount).join(', ')} products; up to ${options.queries} queries per type (median / p99 ms; the peer comparisons' queries, and their aisle rows where the worker count matches the engine's default); 1 and 2 search workers `
      + '(catalogs below the engine\'s pool threshold run inline, so the worker count changes nothing there). Memory: heap + array buffers of the main thread '
      + '(the catalog columns are SharedArrayBuffers, counted once; worker heaps are not included), and the process RSS.',
    '',
    `![latency and memory by catalog size](${svgName})`,
    '',
  ];
  const header = ['products', 'workers', 'build s', 'memory MB', 'RSS MB', ...REQUEST_TYPES.map((t) => REQUEST_LABELS[t])];
  lines.push(`| ${header.join(' | ')} |`, `|${header.map(() => '---:').join('|')}|`);
  for (const p of points) {
    if (!p.result) {
      lines.push(`| ${formatCount(p.size)} | ${p.workers} | failed: ${p.error?.slice(0, 100)} |${' |'.repeat(header.length - 3)}`);
      continue;
    }
    const r = p.result;
    lines.push(`| ${formatCount(p.size)} | ${p.workers} | ${(r.buildMs / 1000).toFixed(2)} | ${mb(r.memoryBytes)} | ${mb(r.rssBytes)} | ${REQUEST_TYPES.map((t) => {
      const l = r.latency[t];
      return l ? `${ms(l.median)} / ${ms(l.p99)}` : (r.errors[t] ? 'error' : '–');
    }).join(' | ')} |`);
  }
  lines.push('');
  return lines.join('\n');
}

/** A two-panel log-log plot: median latency by size (per request type and worker count), memory by size. */
export function scalingSvg(points: Point[], workerCounts: number[]): string {
  const W = 860, H = 360, panelW = 380, panelH = 260, top = 40, lefts = [60, 480];
  const ok = points.filter((p) => p.result);
  const sizes = [...new Set(points.map((p) => p.size))].sort((a, b) => a - b);
  const logX = (size: number): number => {
    const lo = Math.log10(sizes[0] ?? 1), hi = Math.log10(sizes[sizes.length - 1] ?? 10);
    return hi === lo ? panelW / 2 : ((Math.log10(size) - lo) / (hi - lo)) * (panelW - 40) + 20;
  };
  const latencies = ok.flatMap((p) => PLOTTED.map((t) => p.result!.latency[t]?.median).filter((v): v is number => v !== undefined && v > 0));
  const memories = ok.map((p) => p.result!.memoryBytes / 1048576).filter((v) => v > 0);
  const scale = (values: number[]): ((v: number) => number) & { ticks: number[] } => {
    const lo = Math.floor(Math.log10(Math.min(...values, 1))), hi = Math.ceil(Math.log10(Math.max(...values, 10)));
    const f = ((v: number) => panelH - ((Math.log10(Math.max(v, 10 ** lo)) - lo) / (hi - lo || 1)) * panelH) as ((v: number) => number) & { ticks: number[] };
    f.ticks = Array.from({ length: hi - lo + 1 }, (_, i) => 10 ** (lo + i));
    return f;
  };
  const yLat = scale(latencies.length ? latencies : [0.1, 10]);
  const yMem = scale(memories.length ? memories : [1, 100]);
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`);
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  const panel = (left: number, title: string, y: typeof yLat, unit: string): void => {
    out.push(`<g transform="translate(${left},${top})">`);
    out.push(`<text x="${panelW / 2}" y="-18" text-anchor="middle" font-size="13" font-weight="bold">${title}</text>`);
    out.push(`<rect width="${panelW}" height="${panelH}" fill="none" stroke="#999"/>`);
    for (const t of y.ticks) {
      out.push(`<line x1="0" x2="${panelW}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="#eee"/>`);
      out.push(`<text x="-6" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${t >= 1 ? t : t.toPrecision(1)}</text>`);
    }
    for (const s of sizes) out.push(`<text x="${logX(s).toFixed(1)}" y="${panelH + 16}" text-anchor="middle">${formatCount(s)}</text>`);
    out.push(`<text x="${panelW / 2}" y="${panelH + 32}" text-anchor="middle">products</text>`);
    out.push(`<text transform="translate(-44,${panelH / 2}) rotate(-90)" text-anchor="middle">${unit}</text>`);
  };
  const line = (coords: [number, number][], colour: string, dashed: boolean): void => {
    if (coords.length === 0) return;
    out.push(`<polyline fill="none" stroke="${colour}" stroke-width="2"${dashed ? ' stroke-dasharray="5,4"' : ''} points="${coords.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ')}"/>`);
    for (const [x, y] of coords) out.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3" fill="${colour}"/>`);
  };
  panel(lefts[0]!, 'median search latency (log-log)', yLat, 'ms');
  workerCounts.forEach((w, wi) => {
    for (const t of PLOTTED) {
      const coords = ok.filter((p) => p.workers === w && p.result!.latency[t]).map((p): [number, number] => [logX(p.size), yLat(p.result!.latency[t]!.median)]);
      line(coords, COLOURS[t]!, wi > 0);
    }
  });
  out.push('</g>');
  panel(lefts[1]!, 'retained memory (log-log)', yMem, 'MB');
  workerCounts.forEach((w, wi) => {
    const coords = ok.filter((p) => p.workers === w).map((p): [number, number] => [logX(p.size), yMem(p.result!.memoryBytes / 1048576)]);
    line(coords, '#444', wi > 0);
  });
  out.push('</g>');
  // Legend.
  let lx = 60;
  const ly = H - 14;
  for (const t of PLOTTED) {
    out.push(`<line x1="${lx}" x2="${lx + 20}" y1="${ly - 4}" y2="${ly - 4}" stroke="${COLOURS[t]}" stroke-width="2"/><text x="${lx + 24}" y="${ly}">${REQUEST_LABELS[t]}</text>`);
    lx += 34 + REQUEST_LABELS[t].length * 6;
  }
  workerCounts.forEach((w, wi) => {
    out.push(`<line x1="${lx}" x2="${lx + 20}" y1="${ly - 4}" y2="${ly - 4}" stroke="#444" stroke-width="2"${wi > 0 ? ' stroke-dasharray="5,4"' : ''}/><text x="${lx + 24}" y="${ly}">${w} worker${w === 1 ? '' : 's'}</text>`);
    lx += 90;
  });
  out.push('</svg>');
  return out.join('\n');
}
