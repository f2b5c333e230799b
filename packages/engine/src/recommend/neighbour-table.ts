/**
 * A capped, weighted neighbour list per item, stored in slabs of 8-byte entries — a Uint32 word (the
 * neighbour's id in the low 24 bits, the inherited share of its eviction estimate in the high 8) and a
 * Float32 earned weight — so that a million items cost a few typed arrays rather than millions of small objects.
 * (12-byte entries, with the inherited part as a Float32 of its own, cost 0.36 GB more at 1M products
 * and 10M views.) Item ids above {@link MAX_NEIGHBOUR_ITEM} (16.7M distinct RefIds in a website's
 * events) are not paired.
 *
 * The slabs are paged: fixed pages of 2^20 entries (the first page grows by doubling up to that size,
 * so a small website holds a small slab). A block never straddles two pages, and a large table wastes
 * at most one partly filled page instead of the up-to-half-empty slab a grow-by-copy array leaves.
 * A block's position is global (page × page size + place in the page); within a block, order by
 * position is order by place in its page, so ties break exactly as on one flat slab.
 *
 * Each item owns a block of the slabs; a block doubles when full until `cap` entries. When an item
 * already holds `cap` neighbours, a new neighbour replaces the weakest one ("space-saving" heavy-hitter
 * counting): for eviction it inherits the evicted estimate, so that a newcomer is not the next victim
 * of a stream of one-off co-occurrences; for ranking only what it earned since it entered counts (the
 * estimate minus the inherited part, a lower bound of its true weight). Strong neighbours are never
 * evicted by a stream of weak ones. The earned weight is stored exactly (ranking and its ties are
 * exact); the inherited part, used only to choose eviction victims, is kept as a share of the estimate
 * in 1/255ths (at most 254), re-expressed (rounded) when the earned weight grows.
 * @module
 */

import type { ModelState } from './model-state.js';

const NO_BLOCK = -1;
/** Bits of an entry word holding the neighbour id; the 8 above hold the inherited share. */
const ID_BITS = 24;
const ID_MASK = (1 << ID_BITS) - 1;
const SHARE_STEPS = 255;
/** Capacity of an item's first block; blocks double from it up to the cap. */
const FIRST_BLOCK = 4;

/** The largest item id a neighbour table pairs (ids are stored in 24 bits). */
export const MAX_NEIGHBOUR_ITEM = ID_MASK;

/** The inherited share (1/255ths of the estimate) for an inherited part and an earned weight. */
function shareOf(inherited: number, earnedWeight: number): number {
  const total = inherited + earnedWeight;
  // At most 254: the earned weight stays a visible part of the estimate (estimate = earned · 255 / (255 − share)).
  return total > 0 ? Math.min(SHARE_STEPS - 1, Math.round((inherited / total) * SHARE_STEPS)) : 0;
}

/** The eviction estimate of an entry: its earned weight plus the inherited part. */
function estimate(word: number, earnedWeight: number): number {
  return word > ID_MASK ? (earnedWeight * SHARE_STEPS) / (SHARE_STEPS - (word >>> ID_BITS)) : earnedWeight;
}

/**
 * The eviction estimate a table keeps for an entry that earned `earnedWeight` and inherited
 * `inherited` (the share's precision: within about 1/510 of the estimate). For tests and docs.
 */
export function evictionEstimate(inherited: number, earnedWeight: number): number {
  return estimate((shareOf(inherited, earnedWeight) << ID_BITS) >>> 0, earnedWeight);
}

/** Adds `w` to entry k's earned weight; its inherited part keeps its absolute value (re-expressed as a share). */
function strengthen(ids: Uint32Array, weights: Float32Array, k: number, w: number): void {
  const word = ids[k]!;
  const old = weights[k]!;
  weights[k] = old + w;
  if (word > ID_MASK) {
    const share = word >>> ID_BITS;
    ids[k] = (word & ID_MASK) | (shareOf((old * share) / (SHARE_STEPS - share), weights[k]!) << ID_BITS);
  }
}

/** Entry k is replaced by `b`: it has earned `w`, and inherits the evicted estimate for eviction purposes. */
function replaceEntry(ids: Uint32Array, weights: Float32Array, k: number, b: number, w: number): void {
  const inherited = estimate(ids[k]!, weights[k]!);
  weights[k] = w;
  ids[k] = b | (shareOf(inherited, weights[k]!) << ID_BITS);
}

/** Slab position x is weaker than y: smaller estimate, then earlier position (as in `add`). */
function weaker(ids: Uint32Array, weights: Float32Array, x: number, y: number): boolean {
  const wx = estimate(ids[x]!, weights[x]!);
  const wy = estimate(ids[y]!, weights[y]!);
  return wx < wy || (wx === wy && x < y);
}

/** Sifts heap[i] down a heap of slab positions: a min-heap by weakness (`minHeap`) or a max-heap. */
function siftDown(heap: Int32Array, ids: Uint32Array, weights: Float32Array, i: number, n: number, minHeap: boolean): void {
  const item = heap[i]!;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) break;
    const r = l + 1;
    let c = l;
    if (minHeap) {
      if (r < n && weaker(ids, weights, heap[r]!, heap[l]!)) c = r;
      if (!weaker(ids, weights, heap[c]!, item)) break;
    } else {
      if (r < n && weaker(ids, weights, heap[l]!, heap[r]!)) c = r;
      if (!weaker(ids, weights, item, heap[c]!)) break;
    }
    heap[i] = heap[c]!;
    i = c;
  }
  heap[i] = item;
}

/** Neighbour lists of all items: `add(a, b, w)` strengthens the edge a→b. */
export class NeighbourTable {
  /** Pages of entry words: neighbour id (low 24 bits) and inherited share (high 8 bits). */
  private idPages: Uint32Array[] = [];
  /** Pages of estimated weights (ranking uses the weight less the inherited share). */
  private weightPages: Float32Array[] = [];
  /** log2 of the full page size (entries). */
  private readonly pageShift: number;
  private readonly pageMask: number;
  /** Per item: global offset of its block in the slabs, or NO_BLOCK. */
  private offsets: Int32Array;
  /** Per item: number of neighbours held. */
  private sizes: Uint16Array;
  /** Per item: capacity of its block. */
  private capacities: Uint16Array;
  /** Next free global slab position (bump allocation). */
  private top = 0;
  /** Freed blocks by capacity, reused before bumping. */
  private readonly freeBlocks = new Map<number, number[]>();
  /** Per item: generation stamp of `addAll` ("this item is a pending target of the current batch"). */
  private marks = new Int32Array(1024);
  private stamp = 0;
  /** Scratch heap of `evictFor` (slab positions). */
  private heapScratch = new Int32Array(256);

  /**
   * @param cap neighbours kept per item (at most 65535).
   * @param pageShift log2 of the page size in entries (raised until a page holds `cap` entries; tests
   * use small pages to cross page boundaries).
   */
  constructor(readonly cap: number, initialItems = 1024, pageShift = 20) {
    if (!(cap >= 1 && cap <= 65535)) throw new RangeError('cap must be 1..65535');
    let shift = Math.max(1, Math.min(pageShift, 24));
    while (1 << shift < cap) shift++;
    this.pageShift = shift;
    this.pageMask = (1 << shift) - 1;
    const first = Math.min(Math.max(initialItems * 4, cap), 1 << shift);
    this.idPages.push(new Uint32Array(first));
    this.weightPages.push(new Float32Array(first));
    this.offsets = new Int32Array(initialItems).fill(NO_BLOCK);
    this.sizes = new Uint16Array(initialItems);
    this.capacities = new Uint16Array(initialItems);
  }

  /** Adds `w` to the weight of the edge `a → b`. */
  add(a: number, b: number, w: number): void {
    if (a > ID_MASK || b > ID_MASK) return;
    this.ensureItem(a);
    let off = this.offsets[a]!;
    const size = this.sizes[a]!;
    if (off !== NO_BLOCK) {
      // One pass finds the edge and, in case the list is full, its weakest entry.
      const page = off >>> this.pageShift;
      const ids = this.idPages[page]!;
      const weights = this.weightPages[page]!;
      const start = off & this.pageMask;
      let minK = start;
      for (let k = start, end = start + size; k < end; k++) {
        if ((ids[k]! & ID_MASK) === b) {
          strengthen(ids, weights, k, w);
          return;
        }
        if (estimate(ids[k]!, weights[k]!) < estimate(ids[minK]!, weights[minK]!)) minK = k;
      }
      if (size >= this.cap) {
        // Full: the weakest neighbour makes room.
        replaceEntry(ids, weights, minK, b, w);
        return;
      }
    }
    if (size >= this.capacities[a]!) off = this.grow(a);
    const page = off >>> this.pageShift;
    const k = (off & this.pageMask) + size;
    this.idPages[page]![k] = b;
    this.weightPages[page]![k] = w;
    this.sizes[a] = size + 1;
  }

  /**
   * Adds `w` to every edge `a → b` for the distinct `bs` (except `a` itself) in one pass over a's list:
   * O(degree + bs) instead of O(degree × bs) — the cost of an order's pairs. When the list overflows,
   * the newcomers replace the weakest entries (one each, weakest first), inheriting their weights as
   * in {@link add}. With `evict = false` newcomers only fill free places of the item's current block (a
   * first block of 4 for an item without one): a weak, secondary signal that should neither push out
   * neighbours nor take memory of its own — it never grows a block, and costs no eviction pass. At most
   * `maxEvictions` newcomers (the first ones of `bs`) replace entries; the others are dropped.
   */
  addAll(a: number, bs: readonly number[], w: number, evict = true, maxEvictions = Infinity): void {
    if (a > ID_MASK) return;
    if (bs.some((b) => b > ID_MASK)) bs = bs.filter((b) => b <= ID_MASK);
    if (bs.length <= 2 && evict) {
      // A target listed twice counts once, as on the general path below (its marks de-duplicate).
      for (let i = 0; i < bs.length; i++) if (bs[i] !== a && (i === 0 || bs[i] !== bs[0])) this.add(a, bs[i]!, w);
      return;
    }
    this.ensureItem(a);
    const pending = ++this.stamp;
    for (const b of bs) {
      if (b >= this.marks.length) this.growMarks(b);
      this.marks[b] = pending;
    }
    if (a < this.marks.length) this.marks[a] = 0;
    let off = this.offsets[a]!;
    let size = this.sizes[a]!;
    if (off !== NO_BLOCK) {
      const page = off >>> this.pageShift;
      const ids = this.idPages[page]!;
      const weights = this.weightPages[page]!;
      const start = off & this.pageMask;
      if (evict && size === this.cap) {
        this.addAllFull(ids, weights, start, size, bs, w, pending, maxEvictions);
        return;
      }
      for (let k = start, end = start + size; k < end; k++) {
        const b = ids[k]! & ID_MASK;
        if (b < this.marks.length && this.marks[b] === pending) {
          strengthen(ids, weights, k, w);
          this.marks[b] = 0;
        }
      }
    }
    const newcomers: number[] = [];
    for (const b of bs) {
      if (this.marks[b] === pending) {
        newcomers.push(b);
        this.marks[b] = 0;
      }
    }
    let next = 0;
    // A weak signal (evict = false) fills the block it finds, or a first one, but never grows it.
    const room = evict ? this.cap : Math.min(this.cap, this.capacities[a]! > 0 ? this.capacities[a]! : FIRST_BLOCK);
    while (next < newcomers.length && size < room) {
      if (size >= this.capacities[a]!) off = this.grow(a); // grow() copies sizes[a] entries: keep it current
      const page = off >>> this.pageShift;
      const k = (off & this.pageMask) + size;
      this.idPages[page]![k] = newcomers[next++]!;
      this.weightPages[page]![k] = w;
      this.sizes[a] = ++size;
    }
    if (newcomers.length - next > maxEvictions) newcomers.length = next + maxEvictions;
    if (next < newcomers.length && evict) {
      const page = off >>> this.pageShift;
      this.evictFor(this.idPages[page]!, this.weightPages[page]!, off & this.pageMask, size, newcomers, next, w);
    }
  }

  /**
   * {@link addAll} on a full list, in one pass: while the targets already listed are strengthened, the
   * `bs.length` weakest entries (after the update; by weight, then position) are selected in a bounded
   * max-heap; then each newcomer (in `bs` order) replaces the weakest of the selection — the same
   * result as {@link evictFor} (a popped entry is always one of the selected or a newcomer that took
   * the place of one), without a second pass over the list. `off` is the block's place in the page
   * whose arrays are given.
   */
  private addAllFull(
    ids: Uint32Array,
    weights: Float32Array,
    off: number,
    size: number,
    bs: readonly number[],
    w: number,
    pending: number,
    maxEvictions: number,
  ): void {
    const k = Math.min(bs.length, size, maxEvictions);
    if (k <= 0) {
      for (let p = off, end = off + size; p < end; p++) {
        const b = ids[p]! & ID_MASK;
        if (b < this.marks.length && this.marks[b] === pending) {
          strengthen(ids, weights, p, w);
          this.marks[b] = 0;
        }
      }
      for (const b of bs) this.marks[b] = 0;
      return;
    }
    if (this.heapScratch.length < k) this.heapScratch = new Int32Array(Math.max(k, 2 * this.heapScratch.length));
    const heap = this.heapScratch;
    const marks = this.marks;
    let filled = 0;
    for (let p = off, end = off + size; p < end; p++) {
      const b = ids[p]! & ID_MASK;
      if (b < marks.length && marks[b] === pending) {
        strengthen(ids, weights, p, w);
        marks[b] = 0;
      }
      if (filled < k) {
        heap[filled++] = p;
        if (filled === k) for (let i = (k >> 1) - 1; i >= 0; i--) siftDown(heap, ids, weights, i, k, false);
      } else if (estimate(ids[p]!, weights[p]!) < estimate(ids[heap[0]!]!, weights[heap[0]!]!)) {
        // (Equal weights: p comes after every selected position, so it is not weaker.)
        heap[0] = p;
        siftDown(heap, ids, weights, 0, k, false);
      }
    }
    let heapified = false;
    let admitted = 0;
    for (const b of bs) {
      if (marks[b] !== pending) continue;
      marks[b] = 0;
      if (admitted++ >= maxEvictions) continue;
      if (!heapified) {
        for (let i = (k >> 1) - 1; i >= 0; i--) siftDown(heap, ids, weights, i, k, true);
        heapified = true;
      }
      replaceEntry(ids, weights, heap[0]!, b, w);
      siftDown(heap, ids, weights, 0, k, true);
    }
  }

  /**
   * Full list: each remaining newcomer replaces the entry of least estimated weight and enters with
   * that estimate + w — exactly what a sequence of {@link add} calls does, with a min-heap over the
   * block instead of a scan per newcomer. `off` is the block's place in the page whose arrays are given.
   */
  private evictFor(
    ids: Uint32Array,
    weights: Float32Array,
    off: number,
    size: number,
    newcomers: readonly number[],
    from: number,
    w: number,
  ): void {
    if (newcomers.length - from <= 2) {
      // One or two newcomers: a scan each is cheaper than building a heap.
      for (let n = from; n < newcomers.length; n++) {
        let minK = off;
        for (let k = off + 1, end = off + size; k < end; k++) if (estimate(ids[k]!, weights[k]!) < estimate(ids[minK]!, weights[minK]!)) minK = k;
        replaceEntry(ids, weights, minK, newcomers[n]!, w);
      }
      return;
    }
    // Only the k weakest entries (by weight, then position) can be replaced by k newcomers: a popped
    // entry is either one of them or a newcomer that entered in place of one (at min + w). So the
    // k weakest are selected in one pass with a bounded max-heap, then the replacements run on a
    // min-heap of those k — the same sequence as k add() calls, in O(size + k·log k).
    const k = Math.min(newcomers.length - from, size);
    if (this.heapScratch.length < size) this.heapScratch = new Int32Array(Math.max(size, 2 * this.heapScratch.length));
    const heap = this.heapScratch;
    // 1. Select the k weakest: a max-heap (strongest of the selection on top).
    for (let i = 0; i < k; i++) heap[i] = off + i;
    for (let start = (k >> 1) - 1; start >= 0; start--) siftDown(heap, ids, weights, start, k, false);
    for (let pos = off + k, end = off + size; pos < end; pos++) {
      const top = heap[0]!;
      if (estimate(ids[pos]!, weights[pos]!) < estimate(ids[top]!, weights[top]!)) {
        // (Equal weights: pos > top, so pos is not weaker.)
        heap[0] = pos;
        siftDown(heap, ids, weights, 0, k, false);
      }
    }
    // 2. Min-heap of the selection; each newcomer replaces its minimum and enters at that weight + w.
    for (let start = (k >> 1) - 1; start >= 0; start--) siftDown(heap, ids, weights, start, k, true);
    for (let n = from; n < newcomers.length; n++) {
      replaceEntry(ids, weights, heap[0]!, newcomers[n]!, w);
      siftDown(heap, ids, weights, 0, k, true);
    }
  }

  /** The weight of `a → b` earned while listed (0 when absent). */
  weight(a: number, b: number): number {
    if (a >= this.offsets.length) return 0;
    const off = this.offsets[a]!;
    if (off === NO_BLOCK) return 0;
    const page = off >>> this.pageShift;
    const ids = this.idPages[page]!;
    const weights = this.weightPages[page]!;
    const start = off & this.pageMask;
    for (let k = start, end = start + this.sizes[a]!; k < end; k++) if ((ids[k]! & ID_MASK) === b) return weights[k]!;
    return 0;
  }

  /**
   * The largest earned weight among a's neighbours b with `marks[b] === stamp` (0 when none): one tight
   * pass over a's list, for the redundancy re-ranking's overlap look-ups.
   */
  maxMarkedWeight(a: number, marks: Int32Array, stamp: number): number {
    if (a >= this.offsets.length) return 0;
    const off = this.offsets[a]!;
    if (off === NO_BLOCK) return 0;
    const page = off >>> this.pageShift;
    const ids = this.idPages[page]!;
    const weights = this.weightPages[page]!;
    const start = off & this.pageMask;
    let most = 0;
    for (let k = start, end = start + this.sizes[a]!; k < end; k++) {
      const b = ids[k]! & ID_MASK;
      if (b < marks.length && marks[b] === stamp && weights[k]! > most) most = weights[k]!;
    }
    return most;
  }

  /** Number of neighbours of `a`. */
  degree(a: number): number {
    return a < this.sizes.length ? this.sizes[a]! : 0;
  }

  /** Visits every neighbour of `a` with its earned weight (unordered). */
  forEachNeighbour(a: number, visit: (b: number, w: number) => void): void {
    if (a >= this.offsets.length) return;
    const off = this.offsets[a]!;
    if (off === NO_BLOCK) return;
    const page = off >>> this.pageShift;
    const ids = this.idPages[page]!;
    const weights = this.weightPages[page]!;
    const start = off & this.pageMask;
    for (let k = start, end = start + this.sizes[a]!; k < end; k++) visit(ids[k]! & ID_MASK, weights[k]!);
  }

  /** Multiplies every weight by `factor` (rebasing of time-decayed weights). */
  scale(factor: number): void {
    const pageSize = 1 << this.pageShift;
    // The inherited parts are shares of the estimates: they scale with the weights.
    for (let page = 0; page < this.weightPages.length; page++) {
      const weights = this.weightPages[page]!;
      const end = Math.min(weights.length, this.top - page * pageSize);
      for (let k = 0; k < end; k++) weights[k]! *= factor;
    }
  }

  /**
   * Writes the table's state under `prefix` (see model-state.ts): pages, per-item arrays, the bump
   * position and the free blocks — the exact layout, on which eviction ties depend.
   */
  saveState(state: ModelState, prefix: string): void {
    state.putNumber(`${prefix}.pages`, this.idPages.length);
    this.idPages.forEach((page, i) => state.putArray(`${prefix}.ids.${i}`, page));
    this.weightPages.forEach((page, i) => state.putArray(`${prefix}.weights.${i}`, page));
    state.putArray(`${prefix}.offsets`, this.offsets);
    state.putArray(`${prefix}.sizes`, this.sizes);
    state.putArray(`${prefix}.capacities`, this.capacities);
    state.putNumber(`${prefix}.top`, this.top);
    state.putNumber(`${prefix}.pageShift`, this.pageShift);
    state.putValue(`${prefix}.freeBlocks`, [...this.freeBlocks]);
  }

  /** Replaces the table's state with the one saved under `prefix` (same cap and page size). */
  loadState(state: ModelState, prefix: string): void {
    if (state.number(`${prefix}.pageShift`) !== this.pageShift) throw new Error(`model state ${prefix}: another page size`);
    const pages = state.number(`${prefix}.pages`);
    const idPages: Uint32Array[] = [];
    const weightPages: Float32Array[] = [];
    for (let i = 0; i < pages; i++) {
      idPages.push(state.array(`${prefix}.ids.${i}`, Uint32Array));
      weightPages.push(state.array(`${prefix}.weights.${i}`, Float32Array));
      if (weightPages[i]!.length !== idPages[i]!.length) throw new Error(`model state ${prefix}: page ${i} does not fit together`);
    }
    const offsets = state.array(`${prefix}.offsets`, Int32Array);
    const sizes = state.array(`${prefix}.sizes`, Uint16Array);
    const capacities = state.array(`${prefix}.capacities`, Uint16Array);
    const free = state.value(`${prefix}.freeBlocks`);
    if (sizes.length !== offsets.length || capacities.length !== offsets.length || !Array.isArray(free)) {
      throw new Error(`model state ${prefix}: the per-item arrays do not fit together`);
    }
    this.idPages = idPages;
    this.weightPages = weightPages;
    this.offsets = offsets;
    this.sizes = sizes;
    this.capacities = capacities;
    this.top = state.number(`${prefix}.top`);
    this.freeBlocks.clear();
    for (const [capacity, blocks] of free as [number, number[]][]) this.freeBlocks.set(capacity, blocks);
  }

  /** Bytes of the slabs actually handed out to items (blocks in use or on the free lists). */
  get usedBytes(): number {
    return this.top * 8 + this.offsets.byteLength + this.sizes.byteLength + this.capacities.byteLength;
  }

  /** Bytes held by the slabs and per-item arrays (for the memory figures in the docs). */
  get byteSize(): number {
    let slabs = 0;
    for (const page of this.idPages) slabs += page.length * 8;
    return slabs + this.offsets.byteLength + this.sizes.byteLength + this.capacities.byteLength;
  }

  private growMarks(b: number): void {
    let n = this.marks.length;
    while (n <= b) n *= 2;
    const marks = new Int32Array(n);
    marks.set(this.marks);
    this.marks = marks;
  }

  private ensureItem(a: number): void {
    if (a < this.offsets.length) return;
    let n = this.offsets.length;
    while (n <= a) n *= 2;
    const offsets = new Int32Array(n).fill(NO_BLOCK);
    offsets.set(this.offsets);
    const sizes = new Uint16Array(n);
    sizes.set(this.sizes);
    const caps = new Uint16Array(n);
    caps.set(this.capacities);
    this.offsets = offsets;
    this.sizes = sizes;
    this.capacities = caps;
  }

  /** Moves item `a` to a block twice as large (capped); returns the new offset. */
  private grow(a: number): number {
    const oldCap = this.capacities[a]!;
    const newCap = oldCap === 0 ? Math.min(FIRST_BLOCK, this.cap) : Math.min(oldCap * 2, this.cap);
    const off = this.allocate(newCap);
    const oldOff = this.offsets[a]!;
    if (oldOff !== NO_BLOCK) {
      const size = this.sizes[a]!;
      const from = oldOff >>> this.pageShift;
      const to = off >>> this.pageShift;
      const src = oldOff & this.pageMask;
      const dst = off & this.pageMask;
      this.idPages[to]!.set(this.idPages[from]!.subarray(src, src + size), dst);
      this.weightPages[to]!.set(this.weightPages[from]!.subarray(src, src + size), dst);
      let list = this.freeBlocks.get(oldCap);
      if (!list) this.freeBlocks.set(oldCap, (list = []));
      list.push(oldOff);
    }
    this.offsets[a] = off;
    this.capacities[a] = newCap;
    return off;
  }

  private allocate(capacity: number): number {
    const reuse = this.freeBlocks.get(capacity)?.pop();
    if (reuse !== undefined) return reuse;
    const pageSize = 1 << this.pageShift;
    let page = this.top >>> this.pageShift;
    let start = this.top & this.pageMask;
    if (start + capacity > pageSize) {
      // The block does not fit in the rest of this page: it starts the next one (the rest, less than
      // a block, stays unused).
      page++;
      start = 0;
      this.top = page * pageSize;
    }
    if (page === this.idPages.length) {
      this.idPages.push(new Uint32Array(pageSize));
      this.weightPages.push(new Float32Array(pageSize));
    } else if (start + capacity > this.idPages[page]!.length) {
      // Only the first page grows (by doubling, up to a full page), for small websites.
      let n = this.idPages[page]!.length;
      while (start + capacity > n) n *= 2;
      n = Math.min(n, pageSize);
      const ids = new Uint32Array(n);
      ids.set(this.idPages[page]!.subarray(0, start));
      const weights = new Float32Array(n);
      weights.set(this.weightPages[page]!.subarray(0, start));
      this.idPages[page] = ids;
      this.weightPages[page] = weights;
    }
    const off = this.top;
    this.top += capacity;
    return off;
  }
}
