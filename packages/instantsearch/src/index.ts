/**
 * `@aisle/instantsearch`: a search client for Algolia's InstantSearch.js that calls aisle's
 * `POST /v1.4/search` with a browser search key, and an insights client (insights.ts) that sends the
 * shopper's clicks and conversions to `POST /3.0/events/clicks`. Browser-safe (fetch only, no Node
 * APIs), no runtime dependencies.
 *
 * ```js
 * import instantsearch from 'instantsearch.js';
 * import { searchBox, hits, refinementList } from 'instantsearch.js/es/widgets';
 * import { aisleSearchClient } from '@aisle/instantsearch';
 *
 * const searchClient = aisleSearchClient({
 *   url: 'https://search.shop.example', key: 'sk_…', websiteId: 'shop-1', client: 'shop1',
 *   numericFields: ['price'],
 *   sortIndices: { 'products_price_asc': [{ price: { order: 'asc', type: 'number' } }] },
 * });
 * instantsearch({ indexName: 'products', searchClient }).addWidgets([searchBox({ container: '#q' }), …]).start();
 * ```
 * See docs/browser.md for the whole example and what is translated how.
 * @module
 */
import {
  facetQueryResult, planQueries, toAisleRequest, toAlgoliaResult, toFacetResult, toFacetSearchRequest, type TranslateOptions,
} from './translate.js';
import type {
  AisleErrorBody, AisleSearchRequest, AisleSearchResponse, AlgoliaFacetQuery, AlgoliaFacetResult, AlgoliaQuery, AlgoliaSearchResult,
} from './wire.js';

export * from './translate.js';
export * from './insights.js';
export type * from './wire.js';

/** Options of {@link aisleSearchClient}. */
export interface AisleSearchClientOptions extends TranslateOptions {
  /** aisle's base URL (`''` for the page's own origin). */
  url: string;
  /** A browser search key (`sk_…`), sent as `Authorization: Bearer <key>`. */
  key: string;
  /**
   * `'engine'` (default): the counts of disjunctive facets come from the main search
   * (`disjunctive_facets`), so one search per widget state. `'queries'`: every query InstantSearch
   * sends runs as its own search (for an aisle without `disjunctive_facets`).
   */
  disjunctiveFacets?: 'engine' | 'queries';
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

/** An error answered by aisle (`{type: -1, code, message}`), or a network failure. */
export class AisleSearchError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
    this.name = 'AisleSearchError';
  }
}

/** The search client InstantSearch.js calls (`search` with its multi-query request). */
export interface AisleSearchClient {
  search(queries: readonly AlgoliaQuery[]): Promise<{ results: AlgoliaSearchResult[] }>;
  /** Search for facet values (a searchable refinementList): one aisle search with `facet_search` per query. */
  searchForFacetValues(queries: readonly AlgoliaFacetQuery[]): Promise<AlgoliaFacetResult[]>;
  /** The last requests sent to aisle (for debugging and tests). */
  readonly lastRequests: readonly AisleSearchRequest[];
  /** Clears nothing (no cache); present because InstantSearch calls it when refreshing. */
  clearCache(): Promise<void>;
  /**
   * The 1-based position at which one of the last {@link REMEMBERED_PAGES} result pages showed a
   * product (for the insights client's conversions, which carry no position).
   */
  positionOf(queryID: string, objectID: string): number | undefined;
}

/** Result pages whose positions the search client remembers. */
export const REMEMBERED_PAGES = 50;

/** Creates the client. */
export function aisleSearchClient(options: AisleSearchClientOptions): AisleSearchClient {
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const endpoint = `${options.url.replace(/\/+$/, '')}/v1.4/search`;
  let lastRequests: AisleSearchRequest[] = [];
  /** queryID → objectID → position, oldest page first. */
  const positions = new Map<string, Map<string, number>>();
  const remember = (result: AlgoliaSearchResult): void => {
    if (result.queryID === undefined) return;
    positions.set(result.queryID, new Map(result.hits.map((hit) => [hit.objectID, hit.__position!])));
    if (positions.size > REMEMBERED_PAGES) positions.delete(positions.keys().next().value!);
  };

  async function run(request: AisleSearchRequest): Promise<{ response: AisleSearchResponse; ms: number }> {
    const started = Date.now();
    let res: Response;
    try {
      res = await doFetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${options.key}` },
        body: JSON.stringify(request),
      });
    } catch (err) {
      throw new AisleSearchError(`aisle search failed: ${(err as Error)?.message ?? String(err)}`, 0);
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new AisleSearchError(`aisle search answered ${res.status} with a body that is not JSON`, res.status);
    }
    if (!res.ok) throw new AisleSearchError((body as AisleErrorBody)?.message ?? `aisle search answered ${res.status}`, res.status);
    return { response: body as AisleSearchResponse, ms: Date.now() - started };
  }

  return {
    get lastRequests() {
      return lastRequests;
    },
    async clearCache() {},
    positionOf: (queryID, objectID) => positions.get(queryID)?.get(objectID),
    async search(queries) {
      const requests = queries.map((q) => toAisleRequest(q, options));
      const answeredBy = options.disjunctiveFacets === 'queries' ? queries.map((_, i) => i) : planQueries(queries, requests);
      const own = answeredBy.map((by, i) => (by === i ? i : -1)).filter((i) => i >= 0);
      lastRequests = own.map((i) => requests[i]!);
      const answers = new Map<number, AlgoliaSearchResult>();
      await Promise.all(own.map(async (i) => {
        const { response, ms } = await run(requests[i]!);
        const result = toAlgoliaResult(response, queries[i]!, ms, options);
        remember(result);
        answers.set(i, result);
      }));
      return { results: queries.map((q, i) => (answeredBy[i] === i ? answers.get(i)! : facetQueryResult(answers.get(answeredBy[i]!)!, q))) };
    },
    async searchForFacetValues(queries) {
      const requests = queries.map((q) => toFacetSearchRequest(q, options));
      lastRequests = requests;
      return Promise.all(requests.map(async (request, i) => {
        const { response, ms } = await run(request);
        return toFacetResult(response, queries[i]!, ms);
      }));
    },
  };
}
