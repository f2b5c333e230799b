/**
 * Search A/B in one run: two trees (this one and, e.g., a worktree of an older commit) each build the
 * same generated catalog in their own process, then answer the peers run's request bodies (the same
 * workload: `buildWorkload` of the first 20,000 products, seed 42) interleaved: batches of
 * `--batch` queries go to A and B in turn, the side that goes first alternating every batch, for
 * `--rounds` passes over the queries. Times are each process's own `engine.search` time per call (no
 * IPC in them). Reports the medians / p99 per request type and the B / A ratio of the medians, with the
 * share of queries whose totals agree. `--profile <dir>` writes one CPU profile per side of the
 * searches (build excluded) and prints the functions with the most self time.
 *
 * Run: `node packages/bench/dist/ab/search-ab.js --a /work/wt-speed-base --b . [--products 1000000] [--queries 100] [--rounds 3] [--batch 10] [--types text,text_facets] [--profile <dir>]`
 * @module
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { summarizeCpuProfile, type CpuProfile } from '../cpu-profile-summary.js';
import { loadDataset } from '../datasets.js';
import { ms as fmt, summarize } from '../stats.js';
import { REQUEST_LABELS, REQUEST_TYPES, type RequestType, type SearchRequest } from '../types.js';
import { buildWorkload } from '../workloads/index.js';
import type { AbChildMessage, AbChildReply } from './search-ab-child.js';
import { option } from '../cli-option.js';

const rootA = resolve(option('a', '.'));
const rootB = resolve(option('b', '.'));
const products = Number(option('products', '1000000'));
const queries = Number(option('queries', '100'));
const rounds = Number(option('rounds', '3'));
const batch = Number(option('batch', '10'));
const types = option('types', REQUEST_TYPES.join(',')).split(',') as RequestType[];
const profileDir = option('profile', '');

interface Side { name: string; child: ChildProcess; ask(m: AbChildMessage): Promise<AbChildReply> }

function startSide(name: string): Side {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const child = fork(fileURLToPath(new URL(`./search-ab-child${ext}`, import.meta.url)), [], {
    execArgv: [...process.execArgv, '--max-old-space-size=8192'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...(profileDir && { AB_PROFILE: profileDir }) },
  });
  const ask = (m: AbChildMessage) => new Promise<AbChildReply>((res, rej) => {
    child.once('message', (r: AbChildReply) => (r.type === 'error' ? rej(new Error(`${name}: ${r.error}`)) : res(r)));
    child.send(m);
  });
  return { name, child, ask };
}

async function main(): Promise<void> {
  const sample = await loadDataset({ kind: 'generated', count: products, seed: 1 }, 20_000);
  const workload = buildWorkload(sample, queries);
  const a = startSide('A');
  const b = startSide('B');
  // Built one after the other: the builds do not compete for the two cores.
  for (const [side, root] of [[a, rootA], [b, rootB]] as const) {
    const ready = await side.ask({ type: 'setup', root, products, label: side.name });
    if (ready.type === 'ready') console.log(`${side.name} (${root}): built in ${(ready.buildMs / 1000).toFixed(1)} s, background work settled ${(ready.settledMs / 1000).toFixed(1)} s later, heap ${ready.heapMb.toFixed(0)} MB`);
  }
  const times: Record<'A' | 'B', Partial<Record<RequestType, number[]>>> = { A: {}, B: {} };
  let agree = 0;
  let compared = 0;
  let flip = false;
  for (const type of types) {
    const bodies = workload[type];
    // Warm-up: every query once on each side, untimed.
    for (const side of [a, b]) await side.ask({ type: 'batch', requests: bodies });
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < bodies.length; i += batch) {
        const requests: SearchRequest[] = bodies.slice(i, i + batch);
        const order = flip ? [b, a] : [a, b];
        flip = !flip;
        const got: Partial<Record<'A' | 'B', AbChildReply & { type: 'times' }>> = {};
        for (const side of order) {
          const r = await side.ask({ type: 'batch', requests });
          if (r.type === 'times') got[side.name as 'A' | 'B'] = r;
        }
        for (const s of ['A', 'B'] as const) (times[s][type] ??= []).push(...got[s]!.ms);
        if (round === 0) {
          compared += requests.length;
          agree += got.A!.totals.filter((t, k) => t === got.B!.totals[k]).length;
        }
      }
    }
    const sa = summarize(times.A[type]!);
    const sb = summarize(times.B[type]!);
    console.log(`${REQUEST_LABELS[type]}: A ${fmt(sa.median)} / ${fmt(sa.p99)} ms, B ${fmt(sb.median)} / ${fmt(sb.p99)} ms (median / p99, n=${sa.n}); B / A median ×${(sb.median / sa.median).toFixed(2)}`);
  }
  for (const side of [a, b]) await side.ask({ type: 'stop' });
  console.log(`\n| request | A median / p99 ms | B median / p99 ms | B / A (median) |\n|---|---:|---:|---:|`);
  for (const type of types) {
    const sa = summarize(times.A[type]!);
    const sb = summarize(times.B[type]!);
    console.log(`| ${REQUEST_LABELS[type]} | ${fmt(sa.median)} / ${fmt(sa.p99)} | ${fmt(sb.median)} / ${fmt(sb.p99)} | ×${(sb.median / sa.median).toFixed(2)} |`);
  }
  console.log(`\nA: ${rootA}\nB: ${rootB}\n${products.toLocaleString('en-US')} products, ${queries} queries per type, ${rounds} rounds, batches of ${batch}; totals equal on ${agree} of ${compared} queries`);
  if (profileDir) {
    for (const s of ['A', 'B']) {
      const fns = summarizeCpuProfile(JSON.parse(readFileSync(join(profileDir, `${s}.cpuprofile`), 'utf8')) as CpuProfile);
      console.log(`\n${s}: self / total ms`);
      for (const t of [...fns].sort((x, y) => y.selfMs - x.selfMs).slice(0, 45)) console.log(`${t.selfMs.toFixed(0).padStart(7)} ${t.totalMs.toFixed(0).padStart(7)}  ${t.name}`);
    }
  }
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
