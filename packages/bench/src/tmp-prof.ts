import { loadDataset, datasetOfOptions } from './datasets.js';
import { AisleAdapter } from './peers/aisle.js';
import { buildWorkload, buildWarmupWorkload, ofWordCount } from './workloads/index.js';
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
const all = await loadDataset(datasetOfOptions('100000'));
const W = buildWorkload(all.slice(0, 20000), Number(process.env.N ?? 2000));
const w = ofWordCount(W.text, Number(process.env.WORDS ?? 0));
const warm = buildWarmupWorkload(all.slice(0, 20000), 3000, W).text;
const a = new AisleAdapter();
await a.build(all);
for (const q of warm) await a.search(q);
const session = new Session(); session.connect();
await session.post('Profiler.enable'); await session.post('Profiler.setSamplingInterval', { interval: 50 });
if (process.env.PROF) await session.post('Profiler.start');
if (process.env.HEAP) { await session.post('HeapProfiler.enable'); await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }); }
const s: number[] = [];
for (const q of w) { const t = performance.now(); await a.search(q); s.push(performance.now() - t); }
if (process.env.PROF) { const { profile } = await session.post('Profiler.stop') as any; writeFileSync(process.env.OUT ?? '/tmp/p.cpuprofile', JSON.stringify(profile)); }
if (process.env.HEAP) { const { profile } = await session.post('HeapProfiler.stopSampling') as any;
  const agg = new Map<string, number>(); let tot = 0;
  const walk = (n: any, path: string) => { const own = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}`; const name = n.callFrame.url ? own : `${path} > ${own}`; agg.set(name, (agg.get(name) ?? 0) + n.selfSize); tot += n.selfSize; for (const c of n.children) walk(c, n.callFrame.url ? own : path); };
  walk(profile.head, '');
  console.log('sampled bytes per search', (tot / w.length).toFixed(0));
  for (const [k, v] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(String((v / w.length).toFixed(0)).padStart(8), k); }
s.sort((x, y) => x - y);
const ph = (globalThis as any).__ph;
console.log(w.length, 'queries median', (s[s.length >> 1]! * 1000).toFixed(0), 'mean', (s.reduce((x, y) => x + y) / s.length * 1000).toFixed(0), ph ? Object.entries(ph).map(([k, v]) => `${k} ${((v as number) / w.length * 1000).toFixed(1)}`).join(', ') : '');
await a.close();
