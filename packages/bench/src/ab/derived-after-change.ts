/**
 * Derived lookups after a one-product change, A/B in one run: two trees (this one and, e.g., a
 * worktree of an older commit) each load the same generated catalog into a catalog of their own
 * process, searched with the bench website's settings (its `categories` hierarchy; `--engine`: into an
 * engine, whose recommendation indexes are then rebuilt in the background after each change), warm the searches that read structures
 * derived from a catalog version — a category menu (hierarchy tree and node column), a text sort
 * (sort ranks), facets (key orders) — then take the same one-product changes in turn: a new price
 * (value patch), a new product (append), a changed title (tombstone + append), a delete (tombstone).
 * After each change (its call resolved: the new version is current) each probe is searched once: the
 * first search on the new version, which waited for any structure not ready. Per kind and side: the
 * median and max of the change's time and of each probe's, and of the longest event-loop stall during
 * the change and during the probes. The sides alternate which goes first every round.
 *
 * Run: `node packages/bench/dist/ab/derived-after-change.js --a /work/wt-derived-lookups-base --b . [--products 1000000] [--rounds 5] [--engine]`
 * (`DERIVED_PROFILE=<dir>` in the environment: a CPU profile per side of the changes and probes, `A.cpuprofile`, `B.cpuprofile`).
 * @module
 */
import { fork, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { ms as fmt, summarize } from '../stats.js';
import { option } from '../cli-option.js';
import { CHANGE_KINDS, PROBES, type ChangeKind, type DerivedChildMessage, type DerivedChildReply } from './derived-after-change-child.js';

const rootA = resolve(option('a', '.'));
const rootB = resolve(option('b', '.'));
const products = Number(option('products', '200000'));
const rounds = Number(option('rounds', '5'));
/** `--engine`: through an engine (its background work after each change included) instead of a bare catalog. */
const throughEngine = process.argv.includes('--engine');

interface Side { name: string; ask(m: DerivedChildMessage): Promise<DerivedChildReply>; child: ChildProcess }

function startSide(name: string): Side {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const child = fork(fileURLToPath(new URL(`./derived-after-change-child${ext}`, import.meta.url)), [], {
    execArgv: [...process.execArgv, '--max-old-space-size=8192'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = (m: DerivedChildMessage) => new Promise<DerivedChildReply>((res, rej) => {
    child.once('message', (r: DerivedChildReply) => (r.type === 'error' ? rej(new Error(`${name}: ${r.error}`)) : res(r)));
    child.send(m);
  });
  return { name, ask, child };
}

type Samples = Extract<DerivedChildReply, { type: 'sample' }>[];

const a = startSide('A');
const b = startSide('B');
console.log(`${products} generated products, ${rounds} rounds, ${throughEngine ? 'engine' : 'bare catalog'}, load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
for (const [side, root] of [[a, rootA], [b, rootB]] as const) {
  const ready = await side.ask({ type: 'setup', root, products, label: side.name, engine: throughEngine });
  if (ready.type === 'ready') console.log(`${side.name} (${root}): loaded and warmed in ${(ready.buildMs / 1000).toFixed(1)} s`);
}
const samples: Record<'A' | 'B', Partial<Record<ChangeKind, Samples>>> = { A: {}, B: {} };
let i = 0;
for (let r = 0; r < rounds; r++) {
  for (const kind of CHANGE_KINDS) {
    i++;
    // The same change on both sides; which side goes first alternates.
    for (const side of r % 2 === 0 ? [a, b] : [b, a]) {
      const reply = await side.ask({ type: 'change', kind, i });
      if (reply.type !== 'sample') continue;
      ((samples[side.name as 'A' | 'B'][kind] ??= [])).push(reply);
    }
  }
}
console.log(`load after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
const cell = (xs: number[]) => { const s = summarize(xs); return `${fmt(s.median)} / ${fmt(s.max)}`; };
console.log(`\nms, median / max over ${rounds} changes per kind (probe: first search after the change; stall: longest event-loop stall during the change, during the probes)`);
console.log(['kind', 'side', 'change', 'change stall', ...PROBES, 'probes stall', 'cpu'].join(' | '));
for (const kind of CHANGE_KINDS) {
  for (const name of ['A', 'B'] as const) {
    const s = samples[name][kind] ?? [];
    const totalsAgree = (samples.A[kind] ?? []).every((x, k) => PROBES.every((p) => x.totals[p] === samples.B[kind]?.[k]?.totals[p]));
    console.log([kind, name, cell(s.map((x) => x.changeMs)), cell(s.map((x) => x.changeStallMs)), ...PROBES.map((p) => cell(s.map((x) => x.probeMs[p]))), cell(s.map((x) => x.probeStallMs)), cell(s.map((x) => x.cpuMs)), name === 'B' ? (totalsAgree ? 'totals agree' : 'TOTALS DIFFER') : ''].join(' | '));
  }
}
for (const side of [a, b]) await side.ask({ type: 'stop' });
