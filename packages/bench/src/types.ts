/**
 * The shapes the benchmarks exchange. Declared here (the same shapes as the engine's types.ts) so the
 * bench type-checks on its own while the engine is still being written beside it.
 * @module
 */

/** A product: a string `refId` plus any JSON fields. */
export interface Product {
  refId: string;
  [field: string]: unknown;
}

/** One `sort_fields` element. */
export type SortFieldSpec = Record<string, { order: 'asc' | 'desc'; type: 'number' | 'text' }>;

/** A search request body as the spec documents it (`POST /v1.4/search`). */
export interface SearchRequest {
  website_id: string;
  client: string;
  q: string;
  start: number;
  size?: number;
  scope?: Record<string, string[] | { min?: number; max?: number }>;
  aggregations?: string[];
  range_fields?: string[];
  sort_fields?: SortFieldSpec[];
}

/** What every adapter returns for a request: enough to check it did the same work. */
export interface SearchOutcome {
  total: number;
  /** refIds of the returned page. */
  ids: string[];
  aggregations?: Record<string, { key: string; doc_count: number }[]>;
  ranges?: Record<string, { min: number | null; max: number | null }>;
}

/** The request types every engine runs, in report order. */
export const REQUEST_TYPES = ['text', 'text_facets', 'text_scope', 'browse', 'multi_sort'] as const;
export type RequestType = (typeof REQUEST_TYPES)[number];

/** Human labels of the request types (report headings). */
export const REQUEST_LABELS: Record<RequestType, string> = {
  text: 'text',
  text_facets: 'text + facets + min/max',
  text_scope: '+ brand/price filters',
  browse: 'browse category, facets, 2 ranges, price sort',
  multi_sort: 'two-key sort, offset 40',
};

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
