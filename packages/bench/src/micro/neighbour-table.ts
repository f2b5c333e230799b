/**
 * `NeighbourTable` (recommend/neighbour-table): the co-occurrence look-up behind viewed-together and
 * bought-together — reading one item's neighbours — and the update an event makes.
 * @module
 */
import { NeighbourTable } from '@aisle/engine/internal';
import { type MicroCase, type MicroContext, consume } from './context.js';

export const measures = 'NeighbourTable.forEachNeighbour, NeighbourTable.add';

export async function cases(_ctx: MicroContext): Promise<MicroCase[]> {
  const items = 100_000;
  const table = new NeighbourTable(50, items);
  let seed = 1;
  const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  for (let e = 0; e < 1_000_000; e++) {
    const a = next() % items;
    table.add(a, (a + 1 + (next() % 200)) % items, 1);
  }
  let probe = 0;
  return [
    {
      name: 'top-10 neighbours of an item (100k items, 1M edges)',
      measures: 'NeighbourTable.forEachNeighbour',
      fn: () => {
        const best: number[] = [];
        const weights: number[] = [];
        table.forEachNeighbour(probe = (probe + 7919) % items, (b, w) => {
          if (best.length < 10) { best.push(b); weights.push(w); return; }
          let min = 0;
          for (let k = 1; k < 10; k++) if (weights[k]! < weights[min]!) min = k;
          if (w > weights[min]!) { best[min] = b; weights[min] = w; }
        });
        consume(best);
      },
    },
    { name: 'add one co-occurrence edge', measures: 'NeighbourTable.add', fn: () => { const a = next() % items; table.add(a, next() % items, 1); } },
  ];
}
