/** The deterministic catalog change sequence of the catalog durability test, and its effect. */
export const SITE = { websiteId: 'site-a', client: 'client-a', tokens: ['t'], hmacSecret: 's' };

/** An upsert of a new product, a price change of an earlier one (a value patch), or a delete. */
export type CatalogOp = { kind: 'upsert'; refId: string; price: number } | { kind: 'delete'; refId: string };

export function catalogOps(prefix: string, count: number): CatalogOp[] {
  const ops: CatalogOp[] = [];
  for (let i = 0; ops.length < count; i++) {
    ops.push({ kind: 'upsert', refId: `${prefix}-${i}`, price: i });
    if (i % 5 === 4) ops.push({ kind: 'upsert', refId: `${prefix}-${i - 3}`, price: 1000 + i });
    if (i % 7 === 6) ops.push({ kind: 'delete', refId: `${prefix}-${i - 5}` });
  }
  return ops.slice(0, count);
}

/** The catalog (refId → price) after `ops` over `base`. Pure. */
export function applyOps(base: ReadonlyMap<string, unknown>, ops: readonly CatalogOp[]): Map<string, unknown> {
  const next = new Map(base);
  for (const op of ops) {
    if (op.kind === 'delete') next.delete(op.refId);
    else next.set(op.refId, op.price);
  }
  return next;
}
