/**
 * The shapes the benchmarks exchange. Products and requests are the engine's own types.
 * @module
 */
import type { SearchRequest as EngineSearchRequest } from '@aisle/engine';

export type { Product, SortFieldSpec } from '@aisle/engine';

/** The engine's search request, narrowed to what the workloads send (no `not` exclusions), so every peer can run it. */
export type SearchRequest = Omit<EngineSearchRequest, 'scope'> & {
  scope?: Record<string, string[] | { min?: number; max?: number }>;
};

/** What every adapter returns for a request: enough to check it did the same work. */
export interface SearchOutcome {
  total: number;
  /** refIds of the returned page. */
  ids: string[];
  aggregations?: Record<string, { key: string; doc_count: number }[]>;
  ranges?: Record<string, { min: number | null; max: number | null }>;
  /** Per hierarchy, its tree (request type `hierarchical_facets`). */
  hierarchies?: Record<string, { value: string; path: string; count: number; children?: unknown[] }[]>;
  /** Facet-value search hits (request type `facet_search`). */
  facetHits?: { value: string; count: number }[];
  /** Per field, the count per band (request type `range_buckets`). */
  buckets?: Record<string, number[]>;
}

/** The request types every engine runs, in report order. */
export const REQUEST_TYPES = ['text', 'text_facets', 'text_scope', 'browse', 'multi_sort', 'distinct', 'range_buckets', 'hierarchical_facets', 'facet_search'] as const;
export type RequestType = (typeof REQUEST_TYPES)[number];

/** Human labels of the request types (report headings). */
export const REQUEST_LABELS: Record<RequestType, string> = {
  text: 'text',
  text_facets: 'text + facets + min/max',
  text_scope: '+ brand/price filters',
  browse: 'browse category, facets, 2 ranges, price sort',
  multi_sort: 'two-key sort, offset 40',
  distinct: 'text, one per style, facets',
  range_buckets: 'text + price buckets',
  hierarchical_facets: 'category tree, refined 2 levels',
  facet_search: 'text + brand value search',
};

/**
 * The field the `distinct` request type groups by (aisle: `settings.distinct`; the others by hand): the
 * style id the generated catalog's colour and size variants share. A dataset whose products lack it
 * gets no queries of that type.
 */
export const DISTINCT_FIELD = 'style_id';

/** A dataset, described so that a child process can load it itself (nothing large crosses processes). */
export type DatasetSpec =
  | { kind: 'generated'; count: number; seed: number }
  | { kind: 'file'; path: string; label: string; limit?: number };

export function datasetLabel(spec: DatasetSpec): string {
  return spec.kind === 'generated' ? `generated ${formatCount(spec.count)}` : spec.label;
}

export function formatCount(n: number): string {
  if (n >= 1_000_000 && n % 1_000_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1000 && n % 1000 === 0) return `${n / 1000}k`;
  return String(n);
}
