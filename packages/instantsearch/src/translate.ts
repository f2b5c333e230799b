/**
 * Translation between InstantSearch's queries and aisle's search requests, both ways. Pure.
 *
 * - `query` → `q`; `page` × `hitsPerPage` → `start`, `hitsPerPage` → `size` (InstantSearch pages from 0).
 * - `facets` → `aggregations` for text fields and `range_fields` for the configured numeric fields (and
 *   `range_buckets` for those given band bounds in `rangeBuckets`).
 * - `facetFilters`: `"f:v"` requires `v`, `"f:-v"` excludes it, an OR group `["f:a","f:b"]` accepts either
 *   and marks `f` as a disjunctive facet (`disjunctive_facets`). One field's filters AND together into one
 *   condition: a lone value or OR group is the list form (`["a", "b"]`), exclusions alone `{not}`, and
 *   anything more `{all, any?, not?}` (tags `a` and `b` on a multi-valued field: products having both;
 *   it used to be sent as the intersection of the lists, which matched nothing). Two OR groups on one
 *   field (`(a or b) and (c or d)`) cannot be said in one condition and are refused, naming them.
 *   On a numeric field, a single value `v` becomes `{min: v, max: v}`.
 * - `numericFilters`: `>=`, `<=`, `=` become inclusive bounds; `>` and `<` become the bound plus
 *   `not: [v]` (exact: x > v ⟺ x ≥ v and x ≠ v); `!=` becomes `not`. OR groups cannot be expressed in
 *   aisle's scope and are refused with an error naming them.
 * - `distinct` (`true`/`1`, `false`/`0`) → `distinct`: one hit per product group; each hit keeps aisle's `_variants`.
 * - The index name picks the sort: a name listed in `sortIndices` (InstantSearch's "replica" indices
 *   of the sortBy widget) sends its `sort_fields`; any other name is relevance.
 * - The answer: `payload.result` → `hits` (with `objectID` = `refId` and `_highlightResult` built from
 *   aisle's `_highlight`), `total_results` → `nbHits`/`nbPages`, `aggregations` → `facets`,
 *   `ranges` → `facets_stats`, `range_buckets` (fields given `rangeBuckets`) → `aisle.rangeBuckets`; `query_id` → `queryID`,
 *   and each hit carries `__queryID` and its 1-based `__position` in the whole result list, as
 *   InstantSearch's insights events expect.
 * @module
 */
import type {
  AisleNumericScope, AisleProduct, AisleSearchRequest, AisleSearchResponse, AisleSortField, AisleTextScope, AlgoliaHit,
  AlgoliaFacetQuery, AlgoliaFacetResult, AlgoliaQuery, AlgoliaSearchParams, AlgoliaSearchResult, FacetFilter, HighlightResult,
} from './wire.js';

/** What the translation needs to know besides the query. */
export interface TranslateOptions {
  websiteId: string;
  client: string;
  /** Numeric fields: requested as `range_fields` (for range widgets) and filtered with bounds. */
  numericFields?: readonly string[];
  /**
   * Per numeric field, ascending band bounds: when a query asks for the field's facet (a range widget),
   * aisle counts its matches per band (`range_buckets`), answered in `aisle.rangeBuckets` for a histogram.
   */
  rangeBuckets?: Readonly<Record<string, readonly number[]>>;
  /** Index name → sort keys (the sortBy widget's items); other index names sort by relevance. */
  sortIndices?: Readonly<Record<string, readonly AisleSortField[]>>;
  /** Sent as `customer_id` (personalization). */
  customerId?: string;
  /** Sent as `session_id`: the shopper's session, which clicks and conversions are counted under. */
  sessionId?: string;
  /** Ask aisle for highlighting (default true). */
  highlight?: boolean;
  /**
   * The website's hierarchies as InstantSearch's hierarchicalMenu sees them: aisle's hierarchy name →
   * the widget's level attributes (`attributes`, root first) and its `separator` (default `" > "`). A
   * query asking for one of the attributes asks for the hierarchy's tree (`hierarchical_facets`); a
   * refinement of a level (`"<attribute>:Home > Kitchen"`) is the hierarchy's scope; the tree comes
   * back as one facet per level, keyed by full paths, as Algolia answers.
   */
  hierarchicalFacets?: Readonly<Record<string, { attributes: readonly string[]; separator?: string }>>;
}

/** Default page size of InstantSearch when `hitsPerPage` is not set. */
export const DEFAULT_HITS_PER_PAGE = 20;
/** Pre/post tags InstantSearch's Highlight widget expects when the query does not name its own. */
const DEFAULT_PRE_TAG = '<em>';
const DEFAULT_POST_TAG = '</em>';

/** A query the client cannot translate (the message names the parameter). */
export class UnsupportedQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedQueryError';
  }
}

function asList<T>(v: T | T[] | undefined): T[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/** Splits `"field:value"` (value may contain `:`; `-` negates, `\-` is a literal dash). */
export function parseFacetFilter(filter: string): { field: string; value: string; negated: boolean } {
  const at = filter.indexOf(':');
  if (at <= 0) throw new UnsupportedQueryError(`facetFilters: "${filter}" is not of the form field:value`);
  const field = filter.slice(0, at);
  let value = filter.slice(at + 1);
  let negated = false;
  if (value.startsWith('-')) {
    negated = true;
    value = value.slice(1);
  } else if (value.startsWith('\\-')) {
    value = value.slice(1);
  }
  return { field, value, negated };
}

const NUMERIC_FILTER = /^\s*(.+?)\s*(>=|<=|!=|=|>|<)\s*(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*$/i;

/** Splits `"price>=10"` into field, operator and number. */
export function parseNumericFilter(filter: string): { field: string; op: '>=' | '<=' | '!=' | '=' | '>' | '<'; value: number } {
  const m = NUMERIC_FILTER.exec(filter);
  if (!m) throw new UnsupportedQueryError(`numericFilters: "${filter}" is not of the form field<op>number`);
  return { field: m[1]!, op: m[2] as '>=' | '<=' | '!=' | '=' | '>' | '<', value: Number(m[3]) };
}

/** The number a facet filter's value on numeric field `field` names; throws naming it when it names none. */
function numericFacetValue(field: string, value: string): number {
  const v = Number(value);
  if (!Number.isFinite(v)) throw new UnsupportedQueryError(`facetFilters: "${value}" is not a number (field "${field}" is numeric)`);
  return v;
}

/** Scope under construction: text values per field (AND of OR groups, exclusions) and numeric bounds. */
class ScopeBuilder {
  private readonly text = new Map<string, { groups: string[][]; excluded: string[] }>();
  private readonly numeric = new Map<string, AisleNumericScope>();

  constructor(private readonly numericFields: ReadonlySet<string>) {}

  private textOf(field: string) {
    let t = this.text.get(field);
    if (t === undefined) {
      t = { groups: [], excluded: [] };
      this.text.set(field, t);
    }
    return t;
  }

  private numericOf(field: string): AisleNumericScope {
    let n = this.numeric.get(field);
    if (n === undefined) {
      n = {};
      this.numeric.set(field, n);
    }
    return n;
  }

  /** AND with "field is one of values". */
  accept(field: string, values: string[]): void {
    if (this.numericFields.has(field)) {
      if (values.length !== 1) throw new UnsupportedQueryError(`facetFilters: an OR group on the numeric field "${field}" cannot be expressed; use a range`);
      this.bound(field, '=', numericFacetValue(field, values[0]!));
      return;
    }
    this.textOf(field).groups.push([...new Set(values)]);
  }

  exclude(field: string, value: string): void {
    if (this.numericFields.has(field)) {
      this.bound(field, '!=', numericFacetValue(field, value));
      return;
    }
    this.textOf(field).excluded.push(value);
  }

  bound(field: string, op: '>=' | '<=' | '!=' | '=' | '>' | '<', value: number): void {
    const n = this.numericOf(field);
    const raiseMin = (v: number) => { n.min = n.min === undefined ? v : Math.max(n.min, v); };
    const lowerMax = (v: number) => { n.max = n.max === undefined ? v : Math.min(n.max, v); };
    const exclude = (v: number) => { n.not = [...new Set([...(n.not ?? []), v])]; };
    switch (op) {
      case '>=': raiseMin(value); break;
      case '<=': lowerMax(value); break;
      case '=': raiseMin(value); lowerMax(value); break;
      case '>': raiseMin(value); exclude(value); break;
      case '<': lowerMax(value); exclude(value); break;
      case '!=': exclude(value); break;
    }
  }

  build(): Record<string, AisleTextScope | AisleNumericScope> | undefined {
    const scope: Record<string, AisleTextScope | AisleNumericScope> = {};
    for (const [field, t] of this.text) scope[field] = textCondition(field, t.groups, t.excluded);
    for (const [field, n] of this.numeric) scope[field] = n;
    return Object.keys(scope).length > 0 ? scope : undefined;
  }
}

/**
 * One text field's filters as one aisle condition: the AND of `groups` (each an OR of values) and of
 * the exclusions. A value required on its own (a group of one) satisfies every group holding it.
 */
function textCondition(field: string, groups: readonly string[][], excluded: readonly string[]): AisleTextScope {
  const not = [...new Set(excluded)];
  const all = [...new Set(groups.filter((g) => g.length === 1).map((g) => g[0]!))];
  const ors = groups.filter((g) => g.length > 1 && !g.some((v) => all.includes(v)));
  if (ors.length > 1) {
    throw new UnsupportedQueryError(`facetFilters: the OR groups ${ors.map((g) => JSON.stringify(g.map((v) => `${field}:${v}`))).join(' and ')} on one field cannot be expressed in aisle's scope`);
  }
  const any = ors[0];
  if (not.length === 0 && (any === undefined ? all.length <= 1 : all.length === 0)) return any ?? all;
  if (all.length === 0 && any === undefined) return { not };
  return { ...(all.length > 0 && { all }), ...(any !== undefined && { any }), ...(not.length > 0 && { not }) } as AisleTextScope;
}

/**
 * Algolia's `distinct` (a boolean, or how many hits per group: 0 off) as aisle's: one result per group
 * or none grouped; more than one hit per group cannot be expressed. Absent: the website's default.
 */
function distinctOf(value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === true || value === 1) return true;
  if (value === false || value === 0) return false;
  throw new UnsupportedQueryError(`distinct: ${JSON.stringify(value)} cannot be expressed; aisle shows one hit per group (true or 1) or every variant (false or 0)`);
}

/** InstantSearch's query → aisle's search request. Throws {@link UnsupportedQueryError} naming what it cannot express. */
export function toAisleRequest(query: AlgoliaQuery, options: TranslateOptions): AisleSearchRequest {
  const params: AlgoliaSearchParams = query.params ?? {};
  if (typeof params.filters === 'string' && params.filters.trim() !== '') {
    throw new UnsupportedQueryError('filters: the filter string syntax is not supported; use facetFilters and numericFilters (the widgets do)');
  }
  const numericFields = new Set(options.numericFields ?? []);
  const hitsPerPage = params.hitsPerPage ?? DEFAULT_HITS_PER_PAGE;
  const page = params.page ?? 0;
  const request: AisleSearchRequest = {
    website_id: options.websiteId, client: options.client, q: params.query ?? '', start: page * hitsPerPage, size: hitsPerPage,
  };
  if (options.customerId !== undefined) request.customer_id = options.customerId;
  const distinct = distinctOf(params.distinct);
  if (distinct !== undefined) request.distinct = distinct;
  if (options.sessionId !== undefined) request.session_id = options.sessionId;

  const scope = new ScopeBuilder(numericFields);
  const disjunctive = new Set<string>();
  const levels = hierarchyLevels(options);
  const paths = new Map<string, string[]>();
  for (const filter of asList<FacetFilter>(params.facetFilters)) {
    // A hierarchy's level refined (one path, or an OR group of paths): the hierarchy's scope.
    const group = asList(filter).map(parseFacetFilter);
    const level = group.length > 0 ? levels.get(group[0]!.field) : undefined;
    if (level && group.every((f) => levels.get(f.field)?.name === level.name && !f.negated)) {
      paths.set(level.name, [...(paths.get(level.name) ?? []), ...group.map((f) => f.value.split(level.separator).map((l) => l.trim()).join(' > '))]);
      continue;
    }
    if (Array.isArray(filter)) {
      const parsed = filter.map(parseFacetFilter);
      const fields = new Set(parsed.map((p) => p.field));
      if (fields.size > 1) throw new UnsupportedQueryError(`facetFilters: the OR group ${JSON.stringify(filter)} spans several fields`);
      if (parsed.some((p) => p.negated)) throw new UnsupportedQueryError(`facetFilters: the OR group ${JSON.stringify(filter)} holds an exclusion`);
      if (parsed.length === 0) continue;
      const field = parsed[0]!.field;
      scope.accept(field, parsed.map((p) => p.value));
      if (!numericFields.has(field)) disjunctive.add(field);
    } else {
      const { field, value, negated } = parseFacetFilter(filter);
      if (negated) scope.exclude(field, value);
      else scope.accept(field, [value]);
    }
  }
  for (const filter of asList(params.numericFilters)) {
    if (Array.isArray(filter)) {
      if (filter.length !== 1) throw new UnsupportedQueryError(`numericFilters: the OR group ${JSON.stringify(filter)} cannot be expressed in aisle's scope`);
      const { field, op, value } = parseNumericFilter(filter[0]!);
      scope.bound(field, op, value);
    } else {
      const { field, op, value } = parseNumericFilter(filter);
      scope.bound(field, op, value);
    }
  }
  const built = { ...scope.build(), ...Object.fromEntries(paths) };
  if (Object.keys(built).length > 0) request.scope = built;

  const allFacets = asList(params.facets).filter((f) => f !== '*');
  const hierarchies = [...new Set(allFacets.map((f) => levels.get(f)?.name).filter((n) => n !== undefined))];
  if (hierarchies.length > 0) request.hierarchical_facets = hierarchies;
  const facets = allFacets.filter((f) => !levels.has(f));
  const aggregations = facets.filter((f) => !numericFields.has(f));
  const ranges = facets.filter((f) => numericFields.has(f));
  if (aggregations.length > 0) request.aggregations = aggregations;
  if (ranges.length > 0) request.range_fields = ranges;
  const banded = ranges.filter((f) => options.rangeBuckets?.[f] !== undefined);
  if (banded.length > 0) request.range_buckets = Object.fromEntries(banded.map((f) => [f, [...options.rangeBuckets![f]!]]));
  const disjunctiveFacets = [...disjunctive].filter((f) => aggregations.includes(f));
  if (disjunctiveFacets.length > 0) request.disjunctive_facets = disjunctiveFacets;

  const sort = options.sortIndices?.[query.indexName];
  if (sort !== undefined && sort.length > 0) request.sort_fields = sort.map((s) => ({ ...s }));
  if (options.highlight ?? true) request.highlight = true;
  return request;
}

/** Per level attribute of a configured hierarchy: the hierarchy's name, the level's depth and the widget's separator. */
function hierarchyLevels(options: TranslateOptions): Map<string, { name: string; depth: number; separator: string }> {
  const out = new Map<string, { name: string; depth: number; separator: string }>();
  for (const [name, { attributes, separator }] of Object.entries(options.hierarchicalFacets ?? {})) {
    attributes.forEach((attribute, depth) => out.set(attribute, { name, depth, separator: separator ?? ' > ' }));
  }
  return out;
}

/** A hierarchy's tree as Algolia's facets: per level attribute, the full path (the widget's separator) → count. */
function hierarchyFacets(
  nodes: readonly { path: string; count: number; children?: readonly unknown[] }[], attributes: readonly string[], separator: string,
  depth: number, facets: Record<string, Record<string, number>>,
): void {
  const attribute = attributes[depth];
  if (attribute === undefined) return;
  const level = (facets[attribute] ??= {});
  for (const node of nodes) {
    level[node.path.split(' > ').join(separator)] = node.count;
    if (node.children) hierarchyFacets(node.children as typeof nodes, attributes, separator, depth + 1, facets);
  }
}

/** Escapes text for HTML (InstantSearch inserts highlighted values as HTML). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The text of HTML that {@link escapeHtml} (or aisle's highlighter) escaped. */
function unescapeHtml(html: string): string {
  return html.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name]!);
}

/** A letter or a digit in any script: what a highlight can leave unmarked and still matter. */
const WORD_CHARACTER = /[\p{L}\p{N}]/u;

/**
 * Algolia's `_highlightResult` from aisle's `_highlight`: every string attribute of the product, its
 * value HTML-escaped, with aisle's `<em>…</em>` marks turned into the query's highlight tags. aisle's
 * `_highlight` is already HTML-escaped (docs/http-api.md, "highlight"): its parts are kept as they come,
 * where escaping them again showed a title's "&" as "&amp;". `matchedWords` are the marked words as
 * text; `fullyHighlighted` is true when no letter or digit of the value is left unmarked.
 */
export function highlightResult(product: AisleProduct, preTag: string, postTag: string): Record<string, HighlightResult> {
  const out: Record<string, HighlightResult> = {};
  for (const [field, value] of Object.entries(product)) {
    if (field === '_highlight' || typeof value !== 'string') continue;
    const marked = product._highlight?.[field];
    if (typeof marked === 'string') {
      const words: string[] = [];
      let unmarkedWords = false;
      let html = '';
      let inMark = false;
      for (const part of marked.split(/(<em>|<\/em>)/)) {
        if (part === '<em>' || part === '</em>') {
          inMark = part === '<em>';
          html += inMark ? preTag : postTag;
          continue;
        }
        if (inMark) words.push(unescapeHtml(part));
        else if (WORD_CHARACTER.test(unescapeHtml(part))) unmarkedWords = true;
        html += part;
      }
      out[field] = { value: html, matchLevel: words.length > 0 ? 'full' : 'none', matchedWords: words, fullyHighlighted: words.length > 0 && !unmarkedWords };
    } else {
      out[field] = { value: escapeHtml(value), matchLevel: 'none', matchedWords: [] };
    }
  }
  return out;
}

function encodeParams(params: AlgoliaSearchParams): string {
  return Object.entries(params)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`)
    .join('&');
}

/** aisle's response → the Algolia result InstantSearch reads for `query` (`options`: for the hierarchies' level attributes). */
export function toAlgoliaResult(response: AisleSearchResponse, query: AlgoliaQuery, processingTimeMS = 0, options: Pick<TranslateOptions, 'hierarchicalFacets'> = {}): AlgoliaSearchResult {
  const params = query.params ?? {};
  const hitsPerPage = params.hitsPerPage ?? DEFAULT_HITS_PER_PAGE;
  const page = params.page ?? 0;
  const preTag = params.highlightPreTag ?? DEFAULT_PRE_TAG;
  const postTag = params.highlightPostTag ?? DEFAULT_POST_TAG;
  const { payload } = response;
  const hits: AlgoliaHit[] = payload.result.map((product, i) => {
    const { _highlight: _marks, ...fields } = product;
    return {
      ...fields, objectID: product.refId, _highlightResult: highlightResult(product, preTag, postTag),
      __queryID: response.query_id, __position: page * hitsPerPage + i + 1,
    };
  });
  const result: AlgoliaSearchResult = {
    index: query.indexName,
    query: params.query ?? '',
    params: encodeParams(params),
    hits,
    nbHits: payload.total_results,
    page,
    nbPages: hitsPerPage > 0 ? Math.ceil(payload.total_results / hitsPerPage) : 0,
    hitsPerPage,
    processingTimeMS: Math.round(processingTimeMS),
    exhaustiveNbHits: true,
    exhaustiveFacetsCount: true,
    queryID: response.query_id,
  };
  const facets: Record<string, Record<string, number>> = {};
  for (const [field, buckets] of Object.entries(payload.aggregations ?? {})) {
    facets[field] = Object.fromEntries(buckets.map((b) => [b.key, b.doc_count]));
  }
  for (const [name, nodes] of Object.entries(payload.hierarchical_aggregations ?? {})) {
    const hierarchy = options.hierarchicalFacets?.[name];
    if (hierarchy) hierarchyFacets(nodes, hierarchy.attributes, hierarchy.separator ?? ' > ', 0, facets);
  }
  const stats: NonNullable<AlgoliaSearchResult['facets_stats']> = {};
  for (const [field, range] of Object.entries(payload.ranges ?? {})) {
    facets[field] ??= {};
    if (range.min !== null && range.max !== null) stats[field] = { min: range.min, max: range.max, avg: 0, sum: 0 };
  }
  if (Object.keys(facets).length > 0) result.facets = facets;
  if (Object.keys(stats).length > 0) result.facets_stats = stats;
  const extras: NonNullable<AlgoliaSearchResult['aisle']> = {};
  if (payload.suggestions !== undefined) extras.suggestions = payload.suggestions;
  if (payload.redirects?.url !== undefined) extras.redirects = payload.redirects;
  if (response.settings?.ats_model !== undefined) extras.atsModel = response.settings.ats_model;
  if (payload.range_buckets !== undefined) extras.rangeBuckets = payload.range_buckets;
  if (Object.keys(extras).length > 0) result.aisle = extras;
  return result;
}

/**
 * Which queries of a multi-query request need a search of their own. InstantSearch's helper sends,
 * after each main query, one query per refined disjunctive facet (`hitsPerPage: 0`, `facets: <field>`,
 * the field's own refinement removed) only to get that field's counts. aisle computes those counts in
 * the main search (`disjunctive_facets`), so such a query is answered from its main query's response:
 * `answeredBy[i]` is the index of that main query, or `i` when query `i` runs itself. Numeric fields
 * still run (their `facets_stats` must ignore the field's own range, which `disjunctive_facets` does not
 * cover).
 */
export function planQueries(queries: readonly AlgoliaQuery[], requests: readonly AisleSearchRequest[]): number[] {
  const answeredBy: number[] = [];
  let main = -1;
  queries.forEach((query, i) => {
    const params = query.params ?? {};
    const facets = asList(params.facets);
    const mainRequest = main >= 0 ? requests[main]! : undefined;
    // A hierarchy's level queries (the helper's, for sibling counts) are answered by the main query's tree.
    const levels = requests[i]!.hierarchical_facets ?? [];
    const sameSearch = mainRequest !== undefined && queries[main]!.indexName === query.indexName && (queries[main]!.params?.query ?? '') === (params.query ?? '');
    const isFacetQuery = params.hitsPerPage === 0 && sameSearch && (
      (facets.length === 1 && (mainRequest!.disjunctive_facets ?? []).includes(facets[0]!))
      || (levels.length > 0 && requests[i]!.aggregations === undefined && levels.every((h) => (mainRequest!.hierarchical_facets ?? []).includes(h))));
    if (isFacetQuery) answeredBy.push(main);
    else {
      answeredBy.push(i);
      if ((params.hitsPerPage ?? DEFAULT_HITS_PER_PAGE) > 0) main = i;
    }
  });
  return answeredBy;
}

/** The answer to a facet query (see {@link planQueries}) cut from its main query's result: the facets it asks for. */
export function facetQueryResult(main: AlgoliaSearchResult, query: AlgoliaQuery): AlgoliaSearchResult {
  const params = query.params ?? {};
  const facets: Record<string, Record<string, number>> = {};
  for (const field of asList(params.facets)) {
    const counts = main.facets?.[field];
    if (counts !== undefined) facets[field] = counts;
  }
  return {
    ...main,
    index: query.indexName, params: encodeParams(params), hits: [], page: 0, nbPages: 0, hitsPerPage: 0,
    facets,
    facets_stats: undefined,
  };
}

/**
 * InstantSearch's search for facet values (a searchable refinementList) → aisle's request: the query's
 * search with `facet_search` on the facet, no page (`size: 0`).
 */
export function toFacetSearchRequest(query: AlgoliaFacetQuery, options: TranslateOptions): AisleSearchRequest {
  const { facetName, facetQuery, maxFacetHits, ...params } = query.params;
  const request = toAisleRequest({ indexName: query.indexName, params }, options);
  delete request.highlight;
  return { ...request, size: 0, facet_search: { field: facetName, q: facetQuery ?? '', size: Math.min(100, Math.max(1, maxFacetHits ?? 10)) } };
}

/** aisle's `facet_hits` → Algolia's facet hits, aisle's `<em>` marks turned into the query's highlight tags. */
export function toFacetResult(response: AisleSearchResponse, query: AlgoliaFacetQuery, processingTimeMS = 0): AlgoliaFacetResult {
  const preTag = query.params.highlightPreTag ?? DEFAULT_PRE_TAG;
  const postTag = query.params.highlightPostTag ?? DEFAULT_POST_TAG;
  return {
    facetHits: (response.payload.facet_hits ?? []).map((hit) => ({
      value: hit.value, count: hit.count, highlighted: hit.highlighted.split('<em>').join(preTag).split('</em>').join(postTag),
    })),
    exhaustiveFacetsCount: true,
    processingTimeMS: Math.round(processingTimeMS),
  };
}
