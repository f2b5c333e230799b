/**
 * The PostgreSQL implementation of {@link CatalogChangeLog}: one website's view of the schema's shared
 * change log (`store/pg-change-feed.ts`, rows of kind `catalog`) and of its stored snapshot. Positions
 * are the log's sequence numbers, shared by every website and replica of the schema. The change codec
 * lives here too: a change is stored as JSON parts of about {@link PART_CHARS} characters, one row
 * each, so a big replace never makes one huge value.
 *
 * `CatalogReplication` writes through it (each change tagged with its replica and local id) and reads
 * the log of every website at once with its own cursor; the contract suite
 * (`catalog/durability/change-log-contract.ts`) runs on it against the real server.
 * @module
 */
import type { CatalogChangeLog, PositionedChange, StoredSnapshot } from '../catalog/durability/catalog-change-log.js';
import type { LoggedChange } from '../catalog/durability/catalog-change-log.js';
import { AisleError } from '../errors.js';
import type { ChangeRow, PgChangeFeed } from '../store/pg-change-feed.js';
import type { Product } from '../types.js';

/** The change-log kind of catalog changes. */
export const CATALOG_KIND = 'catalog';
/** Target size of one stored payload part (a big replace spans several rows of one transaction; the driver reads many small values faster than a few big ones). */
const PART_CHARS = 1 << 20;
/** Rows read per page (at most about PAGE × PART_CHARS of text). */
export const PAGE = 100;

/** A catalog change as replicated: the logged kinds plus a patch (merged on each replica). */
export type ReplicatedChange =
  | LoggedChange
  | { kind: 'patch'; patches: readonly Product[]; positions: readonly number[]; onError: 'reject' | 'skip' };

/** The JSON of one stored part. */
type PartJson =
  | { op: 'upsert' | 'replace'; products: Product[] }
  | { op: 'delete'; refIds: string[] }
  | { op: 'patch'; products: Product[]; positions: number[]; onError: 'reject' | 'skip' };

/** Serialises a change into payload parts of about {@link PART_CHARS} each. Pure. */
export function encodeChange(change: ReplicatedChange): string[] {
  if (change.kind === 'delete') return [JSON.stringify({ op: 'delete', refIds: change.refIds })];
  const products = change.kind === 'patch' ? change.patches : change.products;
  const parts: string[] = [];
  let lines: string[] = [];
  let size = 0;
  let from = 0;
  const flush = (to: number): void => {
    const head = change.kind === 'patch'
      ? `{"op":"patch","onError":${JSON.stringify(change.onError)},"positions":${JSON.stringify(change.positions.slice(from, to))},"products":[`
      : `{"op":${JSON.stringify(change.kind)},"products":[`;
    parts.push(`${head}${lines.join(',')}]}`);
    lines = [];
    size = 0;
    from = to;
  };
  products.forEach((p, i) => {
    const line = JSON.stringify(p);
    if (size > 0 && size + line.length > PART_CHARS) flush(i);
    lines.push(line);
    size += line.length + 1;
  });
  if (lines.length > 0 || parts.length === 0) flush(products.length);
  return parts;
}

/** Joins the parts of a change back into one change. Pure. */
export function decodeChange(parts: readonly string[]): ReplicatedChange {
  const json = parts.map((p) => JSON.parse(p) as PartJson);
  const first = json[0]!;
  if (first.op === 'delete') return { kind: 'delete', refIds: first.refIds };
  const products = json.flatMap((j) => (j as { products: Product[] }).products);
  if (first.op === 'patch') {
    return { kind: 'patch', patches: products, positions: json.flatMap((j) => (j as { positions: number[] }).positions), onError: first.onError };
  }
  return { kind: first.op, products };
}

/** A complete change read from the log (all its rows). */
export interface ReadChange { seq: number; websiteId: string; origin: string; rows: ChangeRow[] }

/**
 * Groups catalog rows (after the rows of a change already begun) into complete changes and the rows
 * of the change still incomplete. Pure.
 */
export function completeChanges(rows: readonly ChangeRow[], begun: readonly ChangeRow[]): { complete: ReadChange[]; partial: ChangeRow[] } {
  const complete: ReadChange[] = [];
  let current = [...begun];
  for (const row of rows) {
    if (row.kind !== CATALOG_KIND) continue;
    current.push(row);
    // The rows of one change are consecutive (one statement under the append lock); it is complete
    // once its final part and every part before it are here.
    const final = current.find((r) => r.final);
    if (final !== undefined && current.length === final.part + 1) {
      current.sort((x, y) => x.part - y.part);
      complete.push({ seq: Math.max(...current.map((r) => r.seq)), websiteId: row.websiteId, origin: row.origin, rows: current });
      current = [];
    }
  }
  return { complete, partial: current };
}

/** One website's catalog change log in PostgreSQL; see the module comment. */
export class PgCatalogChangeLog implements CatalogChangeLog<ReplicatedChange> {
  /**
   * @param feed The schema's change log, shared by every website's view (its owner closes it).
   * @param origin What the rows of {@link append} carry as their writer, unless a call names another.
   */
  constructor(private readonly feed: PgChangeFeed, readonly websiteId: string, private readonly origin: string) {}

  /**
   * Appends the changes in one transaction (durable when it resolves, nothing of them on failure);
   * `origin` tags the rows (a replica recognises its own changes by it).
   */
  async append(changes: readonly ReplicatedChange[], origin = this.origin): Promise<number> {
    try {
      return await this.feed.append(CATALOG_KIND, this.websiteId, origin, changes.map(encodeChange));
    } catch (err) {
      throw new AisleError('STORE_FAILURE', `the catalog change could not be written to PostgreSQL; it is not acknowledged: ${(err as Error).message}`, { cause: err });
    }
  }

  async readAfter(position: number): Promise<PositionedChange<ReplicatedChange>[]> {
    const out: PositionedChange<ReplicatedChange>[] = [];
    let partial: ChangeRow[] = [];
    for (let after = position; ;) {
      const rows = await this.feed.read(after, PAGE, undefined, this.websiteId);
      const grouped = completeChanges(rows, partial);
      partial = grouped.partial;
      for (const c of grouped.complete) out.push({ position: c.seq, change: decodeChange(c.rows.map((r) => r.payload!)) });
      if (rows.length < PAGE) break;
      after = rows.at(-1)!.seq;
    }
    return out;
  }

  /**
   * Stores the snapshot unless another replica is storing one of this website right now or the stored
   * one is as recent; the log rows the *previous* snapshot held are then deleted (those between the two
   * stay, so a replica slightly behind catches up from the log instead of reloading a snapshot).
   */
  saveSnapshot(position: number, encode: () => Promise<Uint8Array>): Promise<boolean> {
    return this.feed.writeSnapshot(this.websiteId, position, encode);
  }

  async loadSnapshot(): Promise<StoredSnapshot | undefined> {
    const stored = await this.feed.readSnapshot(this.websiteId);
    return stored && { position: stored.seq, data: stored.data, label: `postgres snapshot of "${this.websiteId}"` };
  }

  /** Nothing to release: the feed is shared by every website's view and closed by its owner. */
  async close(): Promise<void> {}
}
