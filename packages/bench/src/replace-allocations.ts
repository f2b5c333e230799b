/**
 * What a full replace allocates on the JS heap, by function: V8's sampling heap profiler over one
 * `Catalog.replace` of N generated products into a catalog of N, the objects the collector freed
 * counted too (`includeObjectsCollectedByMajorGC/MinorGC`): garbage is what drives scavenges and the
 * incremental marking steps that hold the event loop while both versions are alive (docs/benchmarks.md,
 * "The full replace at 1M: what it allocates"). A builtin's allocations (`keys`, `match`, `subarray`…) are also listed
 * under their caller.
 *
 *   node --import tsx packages/bench/src/replace-allocations.ts [products]
 * @module
 */
import { Session } from 'node:inspector/promises';
import { generateCatalog } from '@aisle/engine/demo';
import { Catalog } from '@aisle/engine/internal';

interface ProfileNode { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: ProfileNode[] }

const count = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 200_000);
const catalog = new Catalog();
let first: ReturnType<typeof generateCatalog> | undefined = generateCatalog({ count });
await catalog.replace(first);
first = undefined;
const products = generateCatalog({ count });
const session = new Session();
session.connect();
// The two flags keep the samples of collected objects (Node's types predate them).
await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as { samplingInterval: number });
const t0 = performance.now();
await catalog.replace(products);
const seconds = (performance.now() - t0) / 1000;
const { profile } = await session.post('HeapProfiler.stopSampling');
session.disconnect();

const self = new Map<string, number>();
let total = 0;
const walk = (node: ProfileNode, caller: string | undefined): void => {
  const f = node.callFrame;
  const label = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
  total += node.selfSize;
  self.set(label, (self.get(label) ?? 0) + node.selfSize);
  // Builtins have no url: name the JS function that called them.
  if (!f.url && caller && node.selfSize > 0) self.set(`${label} <- ${caller}`, (self.get(`${label} <- ${caller}`) ?? 0) + node.selfSize);
  for (const child of node.children) walk(child, f.url ? label : caller);
};
walk(profile.head as unknown as ProfileNode, undefined);
const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(1).padStart(7);
console.log(`replace of ${count} products: ${seconds.toFixed(1)} s, ${mb(total).trim()} MB allocated on the JS heap`);
for (const [label, bytes] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${mb(bytes)} MB  ${label}`);
