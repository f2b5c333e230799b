/**
 * Variants (`settings.distinct`, the request's `distinct`): one result per value of a group field
 * (a style id shared by a product's sizes and colours). Executed inside the columnar plan, never by
 * post-filtering hits:
 *
 * - *Ranking.* While a range's candidates are visited, a bounded heap keeps the best `limit` groups,
 *   each by its best candidate so far (the group is the field's dictionary code, read from the column;
 *   {@link selectGroups}). The top-k of the union of ranges is then
 *   the top-k of the ranges' representatives with duplicate groups dropped (a group's global best is
 *   its range's best, and fewer than `limit` groups rank ahead of it in that range), so the pool's
 *   ranges merge exactly ({@link mergeRepresentatives}).
 * - *Totals and `_variants`.* Each range counts its matching docs per group code; the calling thread
 *   sums the ranges' counts: groups with a count are the total, a group's count is its `_variants`.
 *   Docs without a value (none, `""`) are groups of their own.
 * - *Facet counts per group* (`facetCounts: "groups"`): {@link countGroupValues}, the counting
 *   primitive: a group counts once per value (facet code, bucket, …) when any of its docs counted has
 *   it. A range can count exactly only the groups whose every doc lies inside it ("local"); for the
 *   others it hands back (group, value) pairs, which the calling thread unions across ranges
 *   ({@link addGroupPairs}). Inline, the one range holds every group.
 *
 * Pure functions over the catalog index (no dictionaries: they run in pool workers too).
 * @module
 */
import type { CatalogIndex, CatalogState, TextColumn } from '../catalog/catalog-index.js';
import type { DistinctSettings, WebsiteSettings } from '../contract/settings-schema.js';
import { fieldError } from '../errors.js';
import type { SearchRequest } from '../types.js';
import type { DocComparator } from './top-k.js';
import { gatherInt32 } from '../util/gather.js';
import { numericValues } from '../catalog/columns/numeric-column.js';
import { tailIndex } from '../catalog/columns/text-column.js';
import { bucketsByCode, type PlanBuckets } from './range-buckets.js';

/** The distinct part of a compiled search (absent: every product is its own result). */
export interface PlanDistinct {
  /** The group field's number (-1: no product has a text value there; every product is its own group). */
  field: number;
  /** The dictionary code of `""` in that field (-1: none): a product with it has no group. */
  emptyCode: number;
  /** `facetCounts: "groups"`: counts of the response count groups, not products. */
  groupFacets: boolean;
}

/**
 * Whether (and how) a request is distinct: the request's `distinct` (default: on when the website's
 * settings name a field). `distinct: true` without the setting is a `SEARCH_BAD_REQUEST`.
 */
export function compileDistinct(state: CatalogState, request: SearchRequest, setting: WebsiteSettings['distinct']): PlanDistinct | undefined {
  const named: DistinctSettings | undefined = setting ? setting : undefined;
  if (request.distinct === true && !named) throw fieldError('SEARCH_BAD_REQUEST', 'distinct', 'is true, but the website\'s settings.distinct names no field');
  if (!named || request.distinct === false) return undefined;
  const fid = state.fieldByName.get(named.field);
  const column = fid === undefined ? undefined : state.index.fields[fid].text;
  return {
    field: column ? fid! : -1,
    emptyCode: column ? state.dictionaries[fid!].get('') ?? -1 : -1,
    groupFacets: named.facetCounts === 'groups',
  };
}

/** Per doc its group code, or -1 when it has none (no value, `""`). A multi-valued field groups by its first value. */
export type GroupOf = (doc: number) => number;

/** The group reader of a plan's distinct part, and how many group codes there are. */
export function groupReader(index: CatalogIndex, distinct: PlanDistinct): { groupOf: GroupOf; groups: number } {
  if (distinct.field < 0) return { groupOf: () => -1, groups: 0 };
  const column = index.fields[distinct.field].text!;
  const empty = distinct.emptyCode;
  if (column.single) {
    const single = column.single;
    return { groupOf: empty < 0 ? (d) => single[d] : (d) => (single[d] === empty ? -1 : single[d]), groups: column.dictSize };
  }
  const { offsets, codes } = column;
  return {
    groupOf: (d) => {
      if (offsets[d] === offsets[d + 1]) return -1;
      const c = codes[offsets[d]];
      return c === empty ? -1 : c;
    },
    groups: column.dictSize,
  };
}

/**
 * Whether every doc of group `g` lies in [lo, hi): read from the field's inverted column (the first
 * and last doc having the code). Conservative: a doc having the code as a later value, or a deleted
 * one, may make a group look wider than it is — it is then merged by pairs, which is exact anyway.
 */
export function localGroupTest(index: CatalogIndex, distinct: PlanDistinct, lo: number, hi: number): (g: number) => boolean {
  if (lo === 0 && hi >= index.docCount) return () => true;
  const column: TextColumn = index.fields[distinct.field].text!;
  const { valueOffsets, valueDocs, valueTail } = column;
  return (g) => {
    const from = valueOffsets[g];
    const to = valueOffsets[g + 1];
    if (from === to) return false; // only in the tail: appended docs, assume wide
    if (valueDocs[from] < lo) return false;
    let last = valueDocs[to - 1];
    const i = tailIndex(valueTail, g);
    if (i >= 0) last = valueTail!.docs[valueTail!.offsets[i + 1] - 1];
    return last < hi;
  };
}

// Per-thread scratch of the selection, indexed by group code: `[2g]` the candidates of group g seen so
// far, `[2g + 1]` 1 + its place in the top-k heap (0: not there). Interleaved so a candidate touches one
// cache line. Reused across searches (a fresh table per search would allocate and fill an array twice
// the size of the field's dictionary, megabytes at 1M products); only the groups a search touched are
// reset. Used within one synchronous call, so searches never share it.
// The codes a scan touched are kept in scratch too. Large typed arrays live outside the JS heap, and
// allocating them per search adds external memory that makes V8 run full collections — measured at 1M
// products: a third of a distinct search's time before this scratch.
let scratch = new Int32Array(0);
let touchedScratch: Int32Array = new Int32Array(1024);

function scratchFor(groups: number): Int32Array {
  if (scratch.length < 2 * groups) scratch = new Int32Array(Math.max(2 * groups, 2 * scratch.length));
  return scratch;
}

/** What one range tells about its groups (see {@link selectGroups}). */
export interface RangeGroups {
  /** How many group codes have a candidate in the range. */
  touched: number;
  /**
   * When the range is part of a split catalog (the pool): the group codes with a candidate, and their
   * candidates (same order), for the calling thread to merge; absent for a whole catalog.
   */
  codes?: Int32Array;
  counts?: Uint32Array;
  /** Candidates without a group (each one its own group). */
  ungrouped: number;
  /** Per representative of the top (same order): its group's count here (1 without a group). */
  topCounts: Uint32Array;
  /** Per asked doc (`countsOf` of {@link selectGroups}: pinned products), its group's count here (0: none, or no group). */
  docCounts: Uint32Array;
}

/**
 * Group-while-ranking selection over one range's candidates: the best `limit` groups by their best
 * candidate, best first, each represented by that candidate; and the candidates per group.
 *
 * One pass, a bounded heap whose entries are distinct groups (the worst at the root). A candidate that
 * does not beat the root is out at once (its group has `limit` better groups already; the root only
 * gets better); one that does replaces its group's entry when it is better than it, else takes the
 * root's place. An evicted group may come back with a later, better candidate, which is then its best
 * so far. So each candidate costs a counter and, mostly, one comparison, as in an ordinary top-k.
 *
 * `docs[0, length)` are the candidates' docs; the comparator orders items: the index `k` when
 * `itemIsIndex` (a match list, whose scores are by position), else the doc itself (a bitset range).
 */
export function selectGroups(
  docs: Int32Array, length: number, itemIsIndex: boolean, groupOf: GroupOf, groups: number, limit: number, before: DocComparator,
  options: { split: boolean; countsOf?: readonly number[] },
): { top: Int32Array; groups: RangeGroups } {
  const slots = scratchFor(groups);
  const heap: GroupHeap = { items: new Int32Array(Math.max(0, limit)), groups: new Int32Array(Math.max(0, limit)), size: 0 };
  const seen: Touched = { codes: touchedScratch, count: 0, ungrouped: 0 };
  scanCandidates(docs, length, itemIsIndex, groupOf, slots, before, heap, seen);
  touchedScratch = seen.codes; // grown, perhaps
  // The rest runs once per range: kept apart so the scan's optimised code never meets it.
  return collectSelection(heap, seen, slots, before, groupOf, options);
}

/** The kept groups: entries `[0, size)`, the worst at the root; `groups[i]` -1 for a candidate without a group. */
interface GroupHeap { items: Int32Array; groups: Int32Array; size: number }
/** The groups a scan touched (first-seen order) and the candidates without a group. */
interface Touched { codes: Int32Array; count: number; ungrouped: number }

function heapPlace(heap: GroupHeap, slots: Int32Array, i: number, item: number, g: number): void {
  heap.items[i] = item;
  heap.groups[i] = g;
  if (g >= 0) slots[(g << 1) + 1] = i + 1;
}

function heapUp(heap: GroupHeap, slots: Int32Array, before: DocComparator, i: number, item: number, g: number): void {
  const { items, groups } = heap;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (before(items[parent], item) >= 0) break; // the parent is worse: in place
    heapPlace(heap, slots, i, items[parent], groups[parent]);
    i = parent;
  }
  heapPlace(heap, slots, i, item, g);
}

function heapDown(heap: GroupHeap, slots: Int32Array, before: DocComparator, i: number, item: number, g: number): void {
  const { items, groups, size } = heap;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= size) break;
    const r = l + 1;
    const worse = r < size && before(items[l], items[r]) < 0 ? r : l;
    if (before(items[worse], item) <= 0) break;
    heapPlace(heap, slots, i, items[worse], groups[worse]);
    i = worse;
  }
  heapPlace(heap, slots, i, item, g);
}

/** The hot loop of {@link selectGroups}: counts each candidate's group and keeps the best groups. */
function scanCandidates(
  docs: Int32Array, length: number, itemIsIndex: boolean, groupOf: GroupOf, slots: Int32Array, before: DocComparator, heap: GroupHeap, seen: Touched,
): void {
  const limit = heap.items.length;
  for (let k = 0; k < length; k++) {
    const doc = docs[k];
    const g = groupOf(doc);
    const item = itemIsIndex ? k : doc;
    if (g < 0) seen.ungrouped++;
    else if (slots[g << 1]++ === 0) {
      if (seen.count === seen.codes.length) {
        const grown = new Int32Array(seen.codes.length * 2);
        grown.set(seen.codes);
        seen.codes = grown;
      }
      seen.codes[seen.count++] = g;
    }
    if (limit === 0) continue;
    if (heap.size === limit && before(item, heap.items[0]) >= 0) continue; // not better than the worst kept group
    const at = g < 0 ? 0 : slots[(g << 1) + 1];
    if (at > 0) {
      // Its group is kept: the better of the two represents it (a better entry moves away from the root).
      if (before(item, heap.items[at - 1]) < 0) heapDown(heap, slots, before, at - 1, item, g);
    } else if (heap.size < limit) heapUp(heap, slots, before, heap.size++, item, g);
    else {
      if (heap.groups[0] >= 0) slots[(heap.groups[0] << 1) + 1] = 0;
      heapDown(heap, slots, before, 0, item, g);
    }
  }
}

/** The kept groups best first, the counts, and the scratch reset. */
function collectSelection(
  heap: GroupHeap, seen: Touched, slots: Int32Array, before: DocComparator, groupOf: GroupOf, options: { split: boolean; countsOf?: readonly number[] },
): { top: Int32Array; groups: RangeGroups } {
  // Loops, not typed-array `from` with a map function (its iteration protocol costs more than the reads).
  const order: number[] = [];
  for (let i = 0; i < heap.size; i++) order.push(i);
  order.sort((a, b) => before(heap.items[a], heap.items[b]));
  const top = gatherInt32(heap.items, order);
  const topCounts = new Uint32Array(order.length);
  for (let k = 0; k < order.length; k++) topCounts[k] = heap.groups[order[k]] < 0 ? 1 : slots[heap.groups[order[k]] << 1];
  const countsOf = options.countsOf ?? [];
  const docCounts = new Uint32Array(countsOf.length);
  for (let k = 0; k < countsOf.length; k++) { const g = groupOf(countsOf[k]); docCounts[k] = g < 0 ? 0 : slots[g << 1]; }
  const touched = seen.codes.subarray(0, seen.count);
  const result: RangeGroups = { touched: seen.count, ungrouped: seen.ungrouped, topCounts, docCounts };
  if (options.split) {
    result.codes = touched.slice();
    result.counts = new Uint32Array(touched.length);
    for (let k = 0; k < touched.length; k++) result.counts[k] = slots[touched[k] << 1];
  }
  for (let i = 0; i < touched.length; i++) {
    const at = touched[i] << 1;
    slots[at] = 0;
    slots[at + 1] = 0;
  }
  return { top, groups: result };
}

/** Calls `visit(value)` for each value of `doc` counted by one aggregation (facet codes, a bucket, a path node…). */
export type ValuesOf = (doc: number, visit: (value: number) => void) => void;

/**
 * The groups-aware counting primitive: adds to `counts[value]` one per group having at least one doc
 * of `docs[0, length)` with that value; a doc without a group counts as a group of its own. Groups
 * that `isLocal` rejects (some of their docs lie outside this range) are not counted: their distinct
 * (group, value) pairs are pushed onto `pairs` instead, for {@link addGroupPairs} on the calling
 * thread. `docs` are distinct. O(length + groups + counts.length).
 */
export function countGroupValues(
  docs: ArrayLike<number>, length: number, groupOf: GroupOf, groups: number, valuesOf: ValuesOf, counts: Uint32Array,
  isLocal: (g: number) => boolean = () => true, pairs?: number[],
): void {
  // Counting sort of the grouped docs by group: each group's docs then come in one run.
  const starts = new Uint32Array(groups + 1);
  let grouped = 0;
  for (let i = 0; i < length; i++) {
    const g = groupOf(docs[i]);
    if (g >= 0) { starts[g + 1]++; grouped++; } else valuesOf(docs[i], (v) => { counts[v]++; });
  }
  if (grouped === 0) return;
  for (let g = 0; g < groups; g++) starts[g + 1] += starts[g];
  const fill = starts.slice(0, groups);
  const sorted = new Int32Array(grouped);
  for (let i = 0; i < length; i++) {
    const g = groupOf(docs[i]);
    if (g >= 0) sorted[fill[g]++] = docs[i];
  }
  // Per value, the last group that counted it: within one group's run a value counts once.
  const lastGroup = new Int32Array(counts.length).fill(-1);
  let g = 0;
  let local = true;
  const visit = (v: number): void => {
    if (lastGroup[v] === g) return;
    lastGroup[v] = g;
    if (local) counts[v]++;
    else pairs!.push(g, v);
  };
  for (g = 0; g < groups; g++) {
    const from = starts[g];
    const to = starts[g + 1];
    if (from === to) continue;
    local = pairs === undefined || isLocal(g);
    for (let k = from; k < to; k++) valuesOf(sorted[k], visit);
  }
}

/** Adds the distinct (group, value) pairs of the ranges (each flat `[g, v, g, v, …]`) to `counts`, one per pair. */
export function addGroupPairs(lists: readonly (ArrayLike<number> | undefined)[], counts: Uint32Array): void {
  const seen = new Set<number>();
  const width = counts.length;
  for (const list of lists) {
    if (!list) continue;
    for (let i = 0; i + 1 < list.length; i += 2) {
      const key = list[i] * width + list[i + 1];
      if (seen.has(key)) continue;
      seen.add(key);
      counts[list[i + 1]]++;
    }
  }
}

/** The groups across ranges, merged on the calling thread. */
export interface MergedGroups {
  /** How many groups match: group codes with a match, plus the matches without a group. */
  total: number;
  /** The matches of group `g` (0: none). */
  countOf(g: number): number;
  /** Counts one more match of group `g` (a pinned product joining the results). */
  add(g: number): void;
}

/**
 * Merges the ranges' groups (`undefined`: a range that matched nothing). One range (the whole catalog):
 * its counts are read where they are — the representatives' from `topCounts`, the asked docs' (pinned
 * products, `askedDocs` as given to {@link selectGroups}) from `docCounts`; several: their codes and
 * counts summed into a table by group code.
 */
export function mergeGroups(
  parts: readonly (RangeGroups | undefined)[], topDocs: readonly (Int32Array | undefined)[], groupOf: GroupOf, askedDocs: readonly number[],
): MergedGroups {
  const present: { groups: RangeGroups; top: Int32Array }[] = [];
  parts.forEach((groups, i) => { if (groups) present.push({ groups, top: topDocs[i] ?? new Int32Array(0) }); });
  let total = 0;
  for (const { groups } of present) total += groups.ungrouped;
  const extra = new Map<number, number>();
  const withExtra = (base: (g: number) => number): MergedGroups => ({
    total, countOf: (g) => base(g) + (extra.get(g) ?? 0), add: (g) => { extra.set(g, (extra.get(g) ?? 0) + 1); },
  });
  if (present.length <= 1) {
    const only = present[0]?.groups;
    const known = new Map<number, number>();
    if (only) {
      total += only.touched;
      present[0].top.forEach((d, i) => { const g = groupOf(d); if (g >= 0) known.set(g, only.topCounts[i]); });
      askedDocs.forEach((d, i) => { const g = groupOf(d); if (g >= 0) known.set(g, only.docCounts[i] ?? 0); });
    }
    return withExtra((g) => known.get(g) ?? 0);
  }
  let size = 0;
  for (const { groups } of present) for (const g of groups.codes ?? []) if (g + 1 > size) size = g + 1;
  const table = new Uint32Array(size);
  for (const { groups } of present) {
    const codes = groups.codes ?? new Int32Array(0);
    const counts = groups.counts ?? new Uint32Array(0);
    for (let i = 0; i < codes.length; i++) {
      if (table[codes[i]] === 0) total++;
      table[codes[i]] += counts[i];
    }
  }
  return withExtra((g) => table[g] ?? 0);
}

/**
 * The ranked docs (best first) with every doc whose group came earlier dropped: the ranges' lists of
 * representatives merged into one representative per group.
 */
export function mergeRepresentatives(ranked: ArrayLike<number>, groupOf: GroupOf, limit: number): Int32Array {
  const seen = new Set<number>();
  const out: number[] = [];
  for (let i = 0; i < ranked.length && out.length < limit; i++) {
    const d = ranked[i];
    const g = groupOf(d);
    if (g >= 0) {
      if (seen.has(g)) continue;
      seen.add(g);
    }
    out.push(d);
  }
  return Int32Array.from(out);
}

/** The values of text field `fid` a doc has (its dictionary codes), as {@link ValuesOf}. */
export function textValuesOf(index: CatalogIndex, fid: number): ValuesOf {
  return columnValuesOf(index.fields[fid].text!);
}

/**
 * The codes of a count column a doc has, as {@link ValuesOf}: a field's text column, or a hierarchy's
 * node column (multi-valued: every prefix of the doc's paths, so a group counts once per node).
 */
export function columnValuesOf(column: TextColumn): ValuesOf {
  if (column.single) {
    const single = column.single;
    return (d, visit) => { if (single[d] >= 0) visit(single[d]); };
  }
  const { offsets, codes } = column;
  return (d, visit) => { for (let j = offsets[d], end = offsets[d + 1]; j < end; j++) visit(codes[j]); };
}

/** The bucket of bucket field `b` a doc falls in, as {@link ValuesOf} (`b.field` must be a field). */
export function bucketValuesOf(index: CatalogIndex, b: PlanBuckets): ValuesOf {
  const { byCode, codes } = numericValues(index.fields[b.field]);
  const bucketAt = bucketsByCode(byCode, b.bounds);
  return (d, visit) => {
    const k = bucketAt[codes[d] + 1];
    if (k >= 0) visit(k);
  };
}

/**
 * Facet and bucket counts of one range per group (`facetCounts: "groups"`): each aggregation counts the
 * range's results plus its own near misses (disjunctive facets: `nearMisses[a]`), a bucket field those
 * of the aggregation it shares them with. Fills `facetCounts`/`bucketCounts` with the groups wholly
 * inside [lo, hi) and returns the pairs of the others (see {@link countGroupValues}).
 */
export function countGroupFacets(
  index: CatalogIndex, plan: { distinct?: PlanDistinct; rangeBuckets: PlanBuckets[] }, columns: readonly (TextColumn | undefined)[], lo: number, hi: number,
  hits: Int32Array, hitCount: number, nearMisses: readonly number[][], facetCounts: Uint32Array[], bucketCounts: Uint32Array[],
): { facets: Int32Array[]; buckets: Int32Array[] } {
  const distinct = plan.distinct!;
  const { groupOf, groups } = groupReader(index, distinct);
  const whole = lo === 0 && hi >= index.docCount;
  const isLocal = whole || distinct.field < 0 ? () => true : localGroupTest(index, distinct, lo, hi);
  const docsFor = (a: number | undefined): { docs: Int32Array; length: number } => {
    const extra = a === undefined ? [] : nearMisses[a] ?? [];
    if (extra.length === 0) return { docs: hits, length: hitCount };
    const docs = new Int32Array(hitCount + extra.length);
    docs.set(hits.subarray(0, hitCount));
    docs.set(extra, hitCount);
    return { docs, length: docs.length };
  };
  const count = (a: number | undefined, valuesOf: ValuesOf, counts: Uint32Array): Int32Array => {
    const pairs: number[] | undefined = whole ? undefined : [];
    const { docs, length } = docsFor(a);
    countGroupValues(docs, length, groupOf, groups, valuesOf, counts, isLocal, pairs);
    return Int32Array.from(pairs ?? []);
  };
  const facets = columns.map((column, a) => (column === undefined ? new Int32Array(0) : count(a, columnValuesOf(column), facetCounts[a])));
  const buckets = plan.rangeBuckets.map((b, i) => (b.field < 0 ? new Int32Array(0) : count(b.nearMissAggregation, bucketValuesOf(index, b), bucketCounts[i])));
  return { facets, buckets };
}
