/**
 * What adapters of id-only engines (and the plain scan) do by hand after the text match: scope
 * filters, facet counts, min/max, sorting and paging, over per-field columns built once.
 * @module
 */
import { DISTINCT_FIELD, type Product, type SearchOutcome, type SearchRequest } from '../types.js';
import { words } from '../workloads/sample.js';

function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : NaN;
  }
  return NaN;
}

/**
 * The bench website's hierarchies, as the aisle adapter's settings declare them (`settings.hierarchies`):
 * name → the field holding the path as an array of levels.
 */
export const BENCH_HIERARCHIES: Readonly<Record<string, string>> = { categories: 'categories' };

/** The path separator of requests and responses. */
const PATH = ' > ';

/** Per-field columns over a product array (text: string | undefined; numbers: Float64Array, NaN = missing). */
export class Columns {
  private readonly text = new Map<string, (string | undefined)[]>();
  private readonly numeric = new Map<string, Float64Array>();
  private readonly prefixes = new Map<string, string[][]>();

  constructor(readonly products: readonly Product[]) {}

  textColumn(field: string): (string | undefined)[] {
    let col = this.text.get(field);
    if (!col) {
      col = this.products.map((p) => (typeof p[field] === 'string' ? (p[field] as string) : undefined));
      this.text.set(field, col);
    }
    return col;
  }

  /** Per doc, the path its array of levels in `field` makes, written "A > B" (undefined: none). */
  pathColumn(field: string): (string | undefined)[] {
    const key = `path:${field}`;
    let col = this.text.get(key);
    if (!col) {
      col = this.products.map((p) => {
        const levels = p[field];
        return Array.isArray(levels) && levels.length > 0 ? levels.map(String).join(PATH) : undefined;
      });
      this.text.set(key, col);
    }
    return col;
  }

  /** Per doc, the prefixes of its path in `field` ("A", "A > B", …), computed once (what a user would index). */
  prefixColumn(field: string): readonly string[][] {
    let col = this.prefixes.get(field);
    if (!col) {
      col = this.pathColumn(field).map((path) => {
        if (path === undefined) return [];
        const levels = path.split(PATH);
        return levels.map((_, k) => levels.slice(0, k + 1).join(PATH));
      });
      this.prefixes.set(field, col);
    }
    return col;
  }

  numericColumn(field: string): Float64Array {
    let col = this.numeric.get(field);
    if (!col) {
      col = Float64Array.from(this.products, (p) => toNumber(p[field]));
      this.numeric.set(field, col);
    }
    return col;
  }

  /** Builds the columns a workload uses up front, so the first query does not pay for them. */
  prepare(textFields: string[], numericFields: string[]): void {
    for (const f of textFields) this.textColumn(f);
    for (const f of numericFields) this.numericColumn(f);
  }
}

/**
 * A predicate for the request's scope, or undefined when there is none; `except`: a scope key left out
 * (counts that ignore a field's or hierarchy's own condition). A hierarchy's paths keep the products at
 * or below them.
 */
export function scopePredicate(request: SearchRequest, columns: Columns, except?: string): ((doc: number) => boolean) | undefined {
  const scope = request.scope;
  if (!scope || Object.keys(scope).length === 0) return undefined;
  const tests: ((doc: number) => boolean)[] = [];
  for (const [field, condition] of Object.entries(scope)) {
    if (field === except) continue;
    if (Array.isArray(condition) && Object.hasOwn(BENCH_HIERARCHIES, field)) {
      const col = columns.pathColumn(BENCH_HIERARCHIES[field]!);
      tests.push((doc) => { const v = col[doc]; return v !== undefined && condition.some((p) => v === p || v.startsWith(p + PATH)); });
    } else if (Array.isArray(condition)) {
      const accepted = new Set(condition);
      const col = columns.textColumn(field);
      tests.push((doc) => { const v = col[doc]; return v !== undefined && accepted.has(v); });
    } else {
      const col = columns.numericColumn(field);
      const min = condition.min ?? -Infinity;
      const max = condition.max ?? Infinity;
      tests.push((doc) => { const v = col[doc]!; return v >= min && v <= max; });
    }
  }
  if (tests.length === 0) return undefined;
  return tests.length === 1 ? tests[0] : (doc) => tests.every((t) => t(doc));
}

/** Whether the request has counts that ignore a scope key's own condition (the adapter must not prefilter by scope then). */
export function countsIgnoringOwnCondition(request: SearchRequest): boolean {
  return (request.hierarchical_facets?.length ?? 0) > 0 || request.facet_search !== undefined;
}

/** `docs` passing every scope condition but `except`'s. */
function passingAllBut(docs: ArrayLike<number>, request: SearchRequest, columns: Columns, except: string): number[] {
  const predicate = scopePredicate(request, columns, except);
  const out: number[] = [];
  for (let i = 0; i < docs.length; i++) if (!predicate || predicate(docs[i]!)) out.push(docs[i]!);
  return out;
}

type Node = NonNullable<SearchOutcome['hierarchies']>[string][number];
const byCountThenValue = (a: Node, b: Node) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);

/** A hierarchy's tree by hand: the top level, and the children of the refined paths' nodes, counted ignoring its own condition. */
function hierarchyTree(docs: readonly number[], prefixes: readonly string[][], refined: readonly string[]): Node[] {
  const counts = new Map<string, number>();
  for (const d of docs) for (const prefix of prefixes[d]!) counts.set(prefix, (counts.get(prefix) ?? 0) + 1);
  const onPath = new Set<string>();
  for (const p of refined) { const levels = p.split(PATH); for (let k = 1; k <= levels.length; k++) onPath.add(levels.slice(0, k).join(PATH)); }
  const level = (parent: string): Node[] => {
    const nodes: Node[] = [];
    for (const [path, count] of counts) {
      const rest = parent === '' ? path : path.startsWith(parent + PATH) ? path.slice(parent.length + PATH.length) : undefined;
      if (rest !== undefined && !rest.includes(PATH)) nodes.push({ value: rest, path, count });
    }
    return nodes.sort(byCountThenValue).slice(0, 100).map((n) => (onPath.has(n.path) ? { ...n, children: level(n.path) } : n));
  };
  return level('');
}

/** Facet-value search by hand: values whose words start with the query's words in order (no typos). */
function facetHits(docs: readonly number[], column: readonly (string | undefined)[], q: string, size: number): { value: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const d of docs) { const v = column[d]; if (v !== undefined) counts.set(v, (counts.get(v) ?? 0) + 1); }
  const query = words(q);
  const matches = (value: string): boolean => {
    const valueWords = words(value);
    let from = 0;
    return query.every((w, k) => {
      const at = valueWords.findIndex((t, j) => j >= from && (k === query.length - 1 ? t.startsWith(w) : t === w));
      from = at + 1;
      return at >= 0;
    });
  };
  return [...counts].filter(([v]) => matches(v)).map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1)).slice(0, size);
}

/** Compares two docs by the request's sort keys (missing values last); 0 when there are none. */
export function sortComparator(request: SearchRequest, columns: Columns): ((a: number, b: number) => number) | undefined {
  const keys = (request.sort_fields ?? []).map((spec) => {
    const [field, { order, type }] = Object.entries(spec)[0]!;
    const dir = order === 'desc' ? -1 : 1;
    if (type === 'number') {
      const col = columns.numericColumn(field);
      return (a: number, b: number): number => {
        const x = col[a]!, y = col[b]!;
        if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : 1;
        if (Number.isNaN(y)) return -1;
        return (x - y) * dir;
      };
    }
    const col = columns.textColumn(field);
    return (a: number, b: number): number => {
      const x = col[a], y = col[b];
      if (x === undefined) return y === undefined ? 0 : 1;
      if (y === undefined) return -1;
      return (x < y ? -1 : x > y ? 1 : 0) * dir;
    };
  });
  if (keys.length === 0) return undefined;
  return (a, b) => {
    for (const k of keys) {
      const c = k(a, b);
      if (c !== 0) return c;
    }
    return a - b;
  };
}

/**
 * Applies scope, facets, ranges, sort and paging to text-matched docs (in relevance order) and returns
 * the outcome. `prefiltered` says the scope was already applied by the engine.
 */
export function finishRequest(matched: ArrayLike<number>, request: SearchRequest, columns: Columns, prefiltered = false): SearchOutcome {
  const predicate = prefiltered ? undefined : scopePredicate(request, columns);
  let docs: number[];
  if (predicate) {
    docs = [];
    for (let i = 0; i < matched.length; i++) if (predicate(matched[i]!)) docs.push(matched[i]!);
  } else docs = Array.from(matched);
  const outcome: SearchOutcome = { total: docs.length, ids: [] };
  if (request.hierarchical_facets?.length) {
    outcome.hierarchies = {};
    for (const name of request.hierarchical_facets) {
      const refined = request.scope?.[name];
      outcome.hierarchies[name] = hierarchyTree(passingAllBut(matched, request, columns, name), columns.prefixColumn(BENCH_HIERARCHIES[name]!), Array.isArray(refined) ? refined : []);
    }
  }
  if (request.facet_search) {
    const { field, q, size } = request.facet_search;
    outcome.facetHits = facetHits(passingAllBut(matched, request, columns, field), columns.textColumn(field), q, size ?? 10);
  }
  if (request.range_buckets) {
    outcome.buckets = {};
    for (const [field, bounds] of Object.entries(request.range_buckets)) {
      const col = columns.numericColumn(field);
      const counts = new Array<number>(bounds.length + 1).fill(0);
      for (const d of docs) {
        const v = col[d]!;
        if (v === v) counts[bounds.filter((b) => b <= v).length]!++;
      }
      outcome.buckets[field] = counts;
    }
  }
  if (request.aggregations?.length) {
    outcome.aggregations = {};
    for (const field of request.aggregations) {
      const col = columns.textColumn(field);
      const counts = new Map<string, number>();
      for (const d of docs) {
        const v = col[d];
        if (v !== undefined) counts.set(v, (counts.get(v) ?? 0) + 1);
      }
      outcome.aggregations[field] = [...counts.entries()]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .map(([key, doc_count]) => ({ key, doc_count }));
    }
  }
  if (request.range_fields?.length) {
    outcome.ranges = {};
    for (const field of request.range_fields) {
      const col = columns.numericColumn(field);
      let min = Infinity, max = -Infinity;
      for (const d of docs) {
        const v = col[d]!;
        if (v < min) min = v;
        if (v > max) max = v;
      }
      outcome.ranges[field] = min <= max ? { min, max } : { min: null, max: null };
    }
  }
  const start = request.start ?? 0;
  const size = request.size ?? 20;
  const compare = sortComparator(request, columns);
  if (request.distinct) {
    // By hand, as a user of an id-only engine would: the best doc per style, then the page of those.
    docs = representatives(docs, columns.textColumn(DISTINCT_FIELD), compare);
    outcome.total = docs.length;
  }
  const page = compare ? topK(docs, start + size, compare).slice(start) : docs.slice(start, start + size);
  outcome.ids = page.map((d) => columns.products[d]!.refId);
  return outcome;
}

/** One doc per group value (the first by `compare`, else in the given order); docs without a value each their own. */
function representatives(docs: readonly number[], groups: readonly (string | undefined)[], compare: ((a: number, b: number) => number) | undefined): number[] {
  const at = new Map<string, number>(); // group value → its position in `out`
  const out: number[] = [];
  for (const d of docs) {
    const g = groups[d];
    if (g === undefined || g === '') { out.push(d); continue; }
    const i = at.get(g);
    if (i === undefined) { at.set(g, out.length); out.push(d); } else if (compare && compare(d, out[i]!) < 0) out[i] = d;
  }
  return out;
}

/** The first k docs by `compare` (partial selection: a bounded sorted buffer, not a full sort). */
export function topK(docs: readonly number[], k: number, compare: (a: number, b: number) => number): number[] {
  if (docs.length <= k * 4) return [...docs].sort(compare).slice(0, k);
  const best: number[] = [];
  for (const d of docs) {
    if (best.length === k && compare(d, best[k - 1]!) >= 0) continue;
    let lo = 0, hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(best[mid]!, d) <= 0) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, d);
    if (best.length > k) best.pop();
  }
  return best;
}
