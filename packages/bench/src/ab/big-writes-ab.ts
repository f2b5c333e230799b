/**
 * The longest step of three pieces of background work that write big fresh typed arrays, for two trees
 * in ONE process, rounds alternating which tree goes first (decision 0078): `rowsByRevision` over
 * `--rows` row revisions (a recommendation index's rebuild), a copy of `--rows` revisions
 * (`growableCopySteps` where the tree has it, else `growableCopy` in one go: a value patch), and the
 * interner's checkpoint state over `--ids` ids (`saveStateSteps` where the tree has it, else `saveState`
 * plus the copies the models made of its arrays). Per piece and tree: the steps, the longest step's CPU
 * (the process's, user + system: the step runs alone on the main thread) and wall time, and the minor page
 * faults in that step. Step CPU, not wall time, is what separates the trees on a loaded machine.
 *
 * Run: `node packages/bench/dist/ab/big-writes-ab.js --a <tree A> --b . [--rows 1000000] [--ids 1100000] [--rounds 4]`
 * @module
 */
import { resourceUsage } from 'node:process';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { option } from '../cli-option.js';

type Steps<T> = Generator<void, T, void>;
interface ModelStateLike { arrays: Map<string, { slice(): unknown }>; putArray(name: string, array: unknown): void }
interface InternerLike {
  intern(name: string): number;
  saveState(state: ModelStateLike, prefix: string): void;
  saveStateSteps?(state: ModelStateLike, prefix: string): Steps<void>;
}
interface Tree {
  label: string;
  rowsByRevision(revisions: Uint32Array): Steps<unknown>;
  growableCopy(source: Float64Array): Float64Array;
  growableCopySteps?(source: Float64Array): Steps<Float64Array>;
  ModelState: new () => ModelStateLike;
  interner: InternerLike;
}

const roots = [resolve(option('a', '.')), resolve(option('b', '.'))];
const rowCount = Number(option('rows', '1000000'));
const idCount = Number(option('ids', '1100000'));
const rounds = Number(option('rounds', '4'));
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

async function tree(label: string, root: string): Promise<Tree> {
  const dist = (path: string) => import(pathToFileURL(join(root, 'packages/engine/dist', path)).href);
  const build = await dist('recommend/background-build.js');
  const arrays = await dist('catalog/columns/shared-arrays.js');
  const { Interner } = await dist('recommend/interner.js');
  const { ModelState } = await dist('recommend/model-state.js');
  const interner = new Interner() as InternerLike;
  for (let i = 0; i < idCount; i++) interner.intern(`SKU-${String(i).padStart(7, '0')}`);
  return { label, rowsByRevision: build.rowsByRevision, growableCopy: arrays.growableCopy, growableCopySteps: arrays.growableCopySteps, ModelState, interner };
}

/** Runs `step` until it says it is done; the number of steps and the longest one (CPU, wall, faults). */
function measure(step: () => boolean): { steps: number; cpuMs: number; wallMs: number; faults: number } {
  let steps = 0;
  let longest = { cpuMs: 0, wallMs: 0, faults: 0 };
  for (let done = false; !done;) {
    const faults = resourceUsage().minorPageFault;
    const cpu = process.cpuUsage();
    const t = performance.now();
    done = step();
    const wallMs = performance.now() - t;
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000;
    steps++;
    if (cpuMs > longest.cpuMs) longest = { cpuMs, wallMs, faults: resourceUsage().minorPageFault - faults };
  }
  return { steps, ...longest };
}

const stepsOf = <T>(steps: Steps<T>) => () => steps.next().done === true;
const describe = (name: string, m: ReturnType<typeof measure>) =>
  `${name} ${m.steps} step(s), longest ${m.cpuMs.toFixed(1)} ms CPU (${m.wallMs.toFixed(1)} ms wall, ${m.faults} page faults)`;

const trees = [await tree('A', roots[0]!), await tree('B', roots[1]!)];
const revisions = new Uint32Array(rowCount).map((_, i) => i * 3 + 1);
const source = new Float64Array(rowCount).map((_, i) => i + 0.5);
console.log(`big-writes-ab: ${rowCount} rows, ${idCount} ids, ${rounds} rounds; A ${roots[0]}, B ${roots[1]}; load ${load()}`);
for (let round = 0; round < rounds; round++) {
  for (const t of round % 2 === 0 ? trees : [...trees].reverse()) {
    const rows = measure(stepsOf(t.rowsByRevision(revisions)));
    const copy = measure(t.growableCopySteps ? stepsOf(t.growableCopySteps(source)) : () => { t.growableCopy(source); return true; });
    const state = new t.ModelState();
    const saved = measure(t.interner.saveStateSteps ? stepsOf(t.interner.saveStateSteps(state, 'items')) : () => {
      // As the models saved it before decision 0078: the interner's arrays, then copies of them.
      const items = new t.ModelState();
      t.interner.saveState(items, 'items');
      for (const [name, array] of items.arrays) state.putArray(name, array.slice());
      return true;
    });
    console.log(`round ${round} ${t.label}: ${describe('rowsByRevision', rows)}; ${describe('revisions copy', copy)}; ${describe('interner state', saved)}; load ${load()}`);
  }
}
