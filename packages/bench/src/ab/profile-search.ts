/**
 * A CPU profile of the peers' search workload (one request type) on one tree's engine, each query asked
 * once as the peers run asks it (warm-up from another sample first): prints the functions with the most
 * self and total time, so that where a never-asked search spends its time is read, not guessed.
 *
 * Run: `node packages/bench/dist/ab/profile-search.js [--root .] [--products 100000 | --dataset flipkart] [--queries 2000] [--type text] [--top 40] [--words N] [--out file.cpuprofile]`
 * @module
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { resolve } from 'node:path';
import { option } from '../cli-option.js';
import { summarizeCpuProfile, type CpuProfile } from '../cpu-profile-summary.js';
import { datasetOfOptions, loadDataset } from '../datasets.js';
import { BENCH_WEBSITE } from '../peers/aisle.js';
import type { RequestType } from '../types.js';
import { buildWarmupWorkload, buildWorkload, ofWordCount } from '../workloads/index.js';
import { waitForIdle } from './idle.js';
import { createTreeEngine } from './tree-engine.js';


const root = resolve(option('root', '.'));
const queries = Number(option('queries', '2000'));
const type = option('type', 'text') as RequestType;
const top = Number(option('top', '40'));
const out = option('out', '');
/** Only the queries of this many words (0: all). */
const words = Number(option('words', '0'));

async function main(): Promise<void> {
  const all = await loadDataset(datasetOfOptions('100000'));
  const bodies = ofWordCount(buildWorkload(all.slice(0, 20_000), queries)[type], words);
  const warmup = buildWarmupWorkload(all.slice(0, 20_000), 100)[type];
  const engine = await createTreeEngine(root);
  await engine.replaceProducts(BENCH_WEBSITE.websiteId, all);
  await waitForIdle();
  for (const body of warmup) await engine.search(body);
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  const t0 = performance.now();
  for (const body of bodies) await engine.search(body);
  const ms = performance.now() - t0;
  const { profile } = await session.post('Profiler.stop') as { profile: CpuProfile };
  if (out) writeFileSync(out, JSON.stringify(profile));
  console.log(`${bodies.length} ${type} searches, ${(ms / bodies.length).toFixed(3)} ms each (wall, profiler on)`);
  const times = summarizeCpuProfile(profile);
  const total = times.reduce((s, t) => s + t.selfMs, 0);
  const row = (t: (typeof times)[number]): string => `${(100 * t.selfMs / total).toFixed(1).padStart(5)}% self ${(100 * t.totalMs / total).toFixed(1).padStart(5)}% total  ${t.name}`;
  console.log('-- by self time');
  for (const t of [...times].sort((x, y) => y.selfMs - x.selfMs).slice(0, top)) console.log(row(t));
  console.log('-- by total time');
  for (const t of times.slice(0, top)) console.log(row(t));
  await engine.close();
}

await main();
