/**
 * `engine.search` under experiments: the same query through one engine by a customer outside any
 * experiment (no customer id), a customer of the control, a customer of a variant (its settings merged over
 * the website's, cached), and, on a second engine, a customer of an interleaving experiment (both
 * variants rank, team draft merges them). The ratios to the first case are what an experiment adds to a
 * search: the assignment hash, the tag, the extra log rows — and, interleaved, a second ranking.
 * @module
 */
import { createEngine, type Engine } from '@aisle/engine';
import { type MicroCase, type MicroContext, consume } from './context.js';

export const measures = 'search';

const SITE = { websiteId: 'bench', client: 'bench', tokens: ['bench-token-0123456789'], hmacSecret: 'bench' };

async function engineWith(ctx: MicroContext, experiment: Record<string, unknown>): Promise<Engine> {
  const engine = await createEngine({ workers: 0, websites: [SITE] });
  await engine.upsertProducts('bench', ctx.products);
  await engine.createExperiment('bench', experiment);
  return engine;
}

/** A customer id that `engine` assigns to `variant` (assignment is a hash: try ids until one lands there). */
async function customerOf(engine: Engine, variant: string): Promise<string> {
  for (let i = 0; ; i++) {
    const answer = await engine.search({ website_id: 'bench', client: 'bench', q: 'black', start: 0, size: 1, customer_id: `c${i}` });
    if (answer.settings?.experiment?.variant === variant) return `c${i}`;
  }
}

export async function cases(ctx: MicroContext): Promise<MicroCase[]> {
  const brand = String(ctx.products[0]!.brand);
  const variantSettings = { rules: [{ id: 'b', query: 'black', boost: [{ scope: { brand: [brand] }, weight: 2 }] }] };
  const ab = await engineWith(ctx, { name: 'ab', kind: 'search', variants: [{ name: 'control' }, { name: 'boost', settings: variantSettings }] });
  const interleaving = await engineWith(ctx, { name: 'tdi', kind: 'search', method: 'interleaving', variants: [{ name: 'control' }, { name: 'boost', settings: variantSettings }] });
  const control = await customerOf(ab, 'control');
  const variant = await customerOf(ab, 'boost');
  const n = ctx.products.length.toLocaleString('en-US');
  const search = (engine: Engine, customer?: string) => async () => consume(await engine.search({
    website_id: 'bench', client: 'bench', q: 'black', start: 0, size: 20, ...(customer !== undefined && { customer_id: customer }),
  }));
  return [
    { name: `"black", 20 results, ${n} products, no customer id (not in the experiment)`, fn: search(ab) },
    { name: `the same by a customer of the A/B test's control`, fn: search(ab, control) },
    { name: `the same by a customer of its variant (a rule's boost merged in)`, fn: search(ab, variant) },
    { name: `the same by a customer of an interleaving experiment (both rankings, team draft)`, fn: search(interleaving, 'c1') },
  ];
}
