/**
 * The engines of the relevance evaluation, each configured as its users would for a shop search box:
 * typo tolerance (or its fuzzy matching) on, prefix search on, the same text fields indexed (title,
 * brand, category, description), title boosted where the library has boosts. aisle runs with its
 * defaults (English, every text field indexed, default weights).
 * @module
 */
import { create, insertMultiple, search as oramaSearch, type AnyOrama } from '@orama/orama';
import FlexSearch from 'flexsearch';
import MiniSearch from 'minisearch';
import { Catalog, executeSearch } from '@aisle/engine/internal';
import type { Product } from '../types.js';

/** The best `limit` refIds for a query, and how many products matched. */
export interface RankedAnswer {
  ids: string[];
  total: number;
  /** aisle only: the words it dropped to find something. */
  droppedWords?: string[];
}

export interface RelevanceEngine {
  readonly name: string;
  build(products: readonly Product[]): Promise<void>;
  search(q: string, limit: number): Promise<RankedAnswer>;
}

/** The text fields the peers index (spec fields; aisle indexes every text field of the products). */
export const PEER_FIELDS = ['title', 'brand', 'search_category', 'description'] as const;

function fieldText(p: Product, field: string): string {
  const v = p[field];
  return typeof v === 'string' ? v : Array.isArray(v) ? v.filter((x) => typeof x === 'string').join(' ') : '';
}

class AisleEngine implements RelevanceEngine {
  readonly name = 'aisle';
  private catalog = new Catalog();
  async build(products: readonly Product[]): Promise<void> {
    this.catalog = new Catalog();
    await this.catalog.upsert([...products]);
  }
  async search(q: string, limit: number): Promise<RankedAnswer> {
    const r = await executeSearch(this.catalog, { website_id: 'w', client: 'c', q, start: 0, size: limit });
    return { ids: r.result.map((p) => p.refId), total: r.total_results, droppedWords: r.suggestions.dropped_words };
  }
}

/** MiniSearch 7.2.0 with its documented search-box options: prefix, fuzzy 0.2, title boosted; default OR. */
class MiniSearchEngine implements RelevanceEngine {
  readonly name = 'minisearch 7.2.0 (prefix, fuzzy 0.2)';
  private index = new MiniSearch<Record<string, string>>({
    fields: [...PEER_FIELDS], storeFields: [], idField: 'refId',
    searchOptions: { prefix: true, fuzzy: 0.2, boost: { title: 2 } },
  });
  async build(products: readonly Product[]): Promise<void> {
    this.index.addAll(products.map((p) => Object.fromEntries([['refId', p.refId], ...PEER_FIELDS.map((f) => [f, fieldText(p, f)])])));
  }
  async search(q: string, limit: number): Promise<RankedAnswer> {
    const hits = this.index.search(q);
    return { ids: hits.slice(0, limit).map((h) => String(h.id)), total: hits.length };
  }
}

/** Orama 3.1.18: typo tolerance 1 (its `tolerance`, Levenshtein), prefix matching (its default), title boosted. */
class OramaEngine implements RelevanceEngine {
  readonly name = '@orama/orama 3.1.18 (tolerance 1)';
  private db!: AnyOrama;
  async build(products: readonly Product[]): Promise<void> {
    this.db = create({ schema: Object.fromEntries(PEER_FIELDS.map((f) => [f, 'string'])) as Record<string, 'string'> }) as unknown as AnyOrama;
    const docs = products.map((p) => Object.fromEntries([['id', p.refId], ...PEER_FIELDS.map((f) => [f, fieldText(p, f)])]));
    await insertMultiple(this.db, docs as never[], 5000);
  }
  async search(q: string, limit: number): Promise<RankedAnswer> {
    const r = (await oramaSearch(this.db, { term: q, tolerance: 1, limit, boost: { title: 2 } } as never)) as unknown as { count: number; hits: { id: string }[] };
    return { ids: r.hits.map((h) => h.id), total: r.count };
  }
}

/**
 * FlexSearch 0.8.212: one index over the fields' text, forward tokenizer (prefixes), its
 * LatinAdvanced encoder (its fuzzy, phonetic normalisation) and `suggest` (partial matches kept).
 */
class FlexSearchEngine implements RelevanceEngine {
  readonly name = 'flexsearch 0.8.212 (forward, LatinAdvanced, suggest)';
  private index = new FlexSearch.Index({ tokenize: 'forward', encoder: FlexSearch.Charset.LatinAdvanced });
  private refIds: string[] = [];
  async build(products: readonly Product[]): Promise<void> {
    products.forEach((p, i) => { this.index.add(i, PEER_FIELDS.map((f) => fieldText(p, f)).join(' ')); this.refIds.push(p.refId); });
  }
  async search(q: string, limit: number): Promise<RankedAnswer> {
    const all = this.index.search(q, { limit: this.refIds.length || 1, suggest: true }) as number[];
    return { ids: all.slice(0, limit).map((i) => this.refIds[i]), total: all.length };
  }
}

/** A fresh engine of each kind, aisle first. */
export function relevanceEngines(): RelevanceEngine[] {
  return [new AisleEngine(), new MiniSearchEngine(), new OramaEngine(), new FlexSearchEngine()];
}
