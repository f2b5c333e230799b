/**
 * A capped, weighted neighbour list per item, stored in two slabs (ids in an Int32Array, weights in a
 * Float32Array) so that a million items cost a few typed arrays rather than millions of small objects.
 *
 * Each item owns a block of the slabs; a block doubles when full until `cap` entries. When an item
 * already holds `cap` neighbours, a new neighbour replaces the weakest one ("space-saving" heavy-hitter
 * counting): for eviction it inherits the evicted estimate, so that a newcomer is not the next victim
 * of a stream of one-off co-occurrences; for ranking only what it earned since it entered counts (the
 * estimate minus the inherited part, a lower bound of its true weight). Strong neighbours are never
 * evicted by a stream of weak ones.
 * @module
 */

const NO_BLOCK = -1;

/** Slab position x is weaker than y: smaller weight, then earlier position (as in `add`). */
function weaker(weights: Float32Array, x: number, y: number): boolean {
  const wx = weights[x]!;
  const wy = weights[y]!;
  return wx < wy || (wx === wy && x < y);
}

/** Sifts heap[i] down a heap of slab positions: a min-heap by weakness (`minHeap`) or a max-heap. */
function siftDown(heap: Int32Array, weights: Float32Array, i: number, n: number, minHeap: boolean): void {
  const item = heap[i]!;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) break;
    const r = l + 1;
    let c = l;
    if (minHeap) {
      if (r < n && weaker(weights, heap[r]!, heap[l]!)) c = r;
      if (!weaker(weights, heap[c]!, item)) break;
    } else {
      if (r < n && weaker(weights, heap[l]!, heap[r]!)) c = r;
      if (!weaker(weights, item, heap[c]!)) break;
    }
    heap[i] = heap[c]!;
    i = c;
  }
  heap[i] = item;
}

/** Neighbour lists of all items: `add(a, b, w)` strengthens the edge a→b. */
export class NeighbourTable {
  private ids: Int32Array;
  private weights: Float32Array;
  /** Inherited part of each weight (space-saving error); ranking uses weight − error. */
  private errors: Float32Array;
  /** Per item: offset of its block in the slabs, or NO_BLOCK. */
  private offsets: Int32Array;
  /** Per item: number of neighbours held. */
  private sizes: Uint16Array;
  /** Per item: capacity of its block. */
  private capacities: Uint16Array;
  /** Next free slab position (bump allocation). */
  private top = 0;
  /** Freed blocks by capacity, reused before bumping. */
  private readonly freeBlocks = new Map<number, number[]>();
  /** Per item: generation stamp of `addAll` ("this item is a pending target of the current batch"). */
  private marks = new Int32Array(1024);
  private stamp = 0;
  /** Scratch heap of `evictFor` (slab positions). */
  private heapScratch = new Int32Array(256);

  /** @param cap neighbours kept per item (at most 65535). */
  constructor(readonly cap: number, initialItems = 1024) {
    if (!(cap >= 1 && cap <= 65535)) throw new RangeError('cap must be 1..65535');
    this.ids = new Int32Array(initialItems * 4);
    this.weights = new Float32Array(initialItems * 4);
    this.errors = new Float32Array(initialItems * 4);
    this.offsets = new Int32Array(initialItems).fill(NO_BLOCK);
    this.sizes = new Uint16Array(initialItems);
    this.capacities = new Uint16Array(initialItems);
  }

  /** Adds `w` to the weight of the edge `a → b`. */
  add(a: number, b: number, w: number): void {
    this.ensureItem(a);
    let off = this.offsets[a]!;
    const size = this.sizes[a]!;
    // One pass finds the edge and, in case the list is full, its weakest entry.
    let minK = off;
    if (off !== NO_BLOCK) {
      for (let k = off, end = off + size; k < end; k++) {
        if (this.ids[k] === b) {
          this.weights[k]! += w;
          return;
        }
        if (this.weights[k]! < this.weights[minK]!) minK = k;
      }
    }
    if (size < this.cap) {
      if (size >= this.capacities[a]!) off = this.grow(a);
      this.ids[off + size] = b;
      this.weights[off + size] = w;
      this.errors[off + size] = 0;
      this.sizes[a] = size + 1;
      return;
    }
    // Full: the weakest neighbour makes room.
    this.ids[minK] = b;
    this.errors[minK] = this.weights[minK]!;
    this.weights[minK]! += w;
  }

  /**
   * Adds `w` to every edge `a → b` for the distinct `bs` (except `a` itself) in one pass over a's list:
   * O(degree + bs) instead of O(degree × bs) — the cost of an order's pairs. When the list overflows,
   * the newcomers replace the weakest entries (one each, weakest first), inheriting their weights as
   * in {@link add}. With `evict = false` newcomers only fill free places of the list (a weak, secondary
   * signal that should not push out neighbours, and costs no eviction pass over a full list). At most
   * `maxEvictions` newcomers (the first ones of `bs`) replace entries; the others are dropped.
   */
  addAll(a: number, bs: readonly number[], w: number, evict = true, maxEvictions = Infinity): void {
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
    if (evict && off !== NO_BLOCK && size === this.cap) {
      this.addAllFull(off, size, bs, w, pending, maxEvictions);
      return;
    }
    if (off !== NO_BLOCK) {
      for (let k = off, end = off + size; k < end; k++) {
        const b = this.ids[k]!;
        if (b < this.marks.length && this.marks[b] === pending) {
          this.weights[k]! += w;
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
    while (next < newcomers.length && size < this.cap) {
      if (size >= this.capacities[a]!) off = this.grow(a); // grow() copies sizes[a] entries: keep it current
      this.ids[off + size] = newcomers[next++]!;
      this.weights[off + size] = w;
      this.errors[off + size] = 0;
      this.sizes[a] = ++size;
    }
    if (newcomers.length - next > maxEvictions) newcomers.length = next + maxEvictions;
    if (next < newcomers.length && evict) this.evictFor(off, size, newcomers, next, w);
  }

  /**
   * {@link addAll} on a full list, in one pass: while the targets already listed are strengthened, the
   * `bs.length` weakest entries (after the update; by weight, then position) are selected in a bounded
   * max-heap; then each newcomer (in `bs` order) replaces the weakest of the selection — the same
   * result as {@link evictFor} (a popped entry is always one of the selected or a newcomer that took
   * the place of one), without a second pass over the list.
   */
  private addAllFull(off: number, size: number, bs: readonly number[], w: number, pending: number, maxEvictions: number): void {
    const k = Math.min(bs.length, size, maxEvictions);
    if (k <= 0) {
      for (let p = off, end = off + size; p < end; p++) {
        const b = this.ids[p]!;
        if (b < this.marks.length && this.marks[b] === pending) {
          this.weights[p]! += w;
          this.marks[b] = 0;
        }
      }
      for (const b of bs) this.marks[b] = 0;
      return;
    }
    if (this.heapScratch.length < k) this.heapScratch = new Int32Array(Math.max(k, 2 * this.heapScratch.length));
    const heap = this.heapScratch;
    const ids = this.ids;
    const weights = this.weights;
    const errors = this.errors;
    const marks = this.marks;
    let filled = 0;
    for (let p = off, end = off + size; p < end; p++) {
      const b = ids[p]!;
      if (b < marks.length && marks[b] === pending) {
        weights[p]! += w;
        marks[b] = 0;
      }
      if (filled < k) {
        heap[filled++] = p;
        if (filled === k) for (let i = (k >> 1) - 1; i >= 0; i--) siftDown(heap, weights, i, k, false);
      } else if (weights[p]! < weights[heap[0]!]!) {
        // (Equal weights: p comes after every selected position, so it is not weaker.)
        heap[0] = p;
        siftDown(heap, weights, 0, k, false);
      }
    }
    let heapified = false;
    let admitted = 0;
    for (const b of bs) {
      if (marks[b] !== pending) continue;
      marks[b] = 0;
      if (admitted++ >= maxEvictions) continue;
      if (!heapified) {
        for (let i = (k >> 1) - 1; i >= 0; i--) siftDown(heap, weights, i, k, true);
        heapified = true;
      }
      const pos = heap[0]!;
      ids[pos] = b;
      errors[pos] = weights[pos]!;
      weights[pos]! += w;
      siftDown(heap, weights, 0, k, true);
    }
  }

  /**
   * Full list: each remaining newcomer replaces the entry of least estimated weight and enters with
   * that estimate + w — exactly what a sequence of {@link add} calls does, with a min-heap over the
   * block instead of a scan per newcomer.
   */
  private evictFor(off: number, size: number, newcomers: readonly number[], from: number, w: number): void {
    const weights = this.weights;
    const ids = this.ids;
    const errors = this.errors;
    if (newcomers.length - from <= 2) {
      // One or two newcomers: a scan each is cheaper than building a heap.
      for (let n = from; n < newcomers.length; n++) {
        let minK = off;
        for (let k = off + 1, end = off + size; k < end; k++) if (weights[k]! < weights[minK]!) minK = k;
        ids[minK] = newcomers[n]!;
        errors[minK] = weights[minK]!;
        weights[minK]! += w;
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
    for (let start = (k >> 1) - 1; start >= 0; start--) siftDown(heap, weights, start, k, false);
    for (let pos = off + k, end = off + size; pos < end; pos++) {
      const top = heap[0]!;
      if (weights[pos]! < weights[top]!) {
        // (Equal weights: pos > top, so pos is not weaker.)
        heap[0] = pos;
        siftDown(heap, weights, 0, k, false);
      }
    }
    // 2. Min-heap of the selection; each newcomer replaces its minimum and enters at that weight + w.
    for (let start = (k >> 1) - 1; start >= 0; start--) siftDown(heap, weights, start, k, true);
    for (let n = from; n < newcomers.length; n++) {
      const pos = heap[0]!;
      ids[pos] = newcomers[n]!;
      errors[pos] = weights[pos]!;
      weights[pos]! += w;
      siftDown(heap, weights, 0, k, true);
    }
  }

  /** The weight of `a → b` earned while listed (0 when absent). */
  weight(a: number, b: number): number {
    if (a >= this.offsets.length) return 0;
    const off = this.offsets[a]!;
    if (off === NO_BLOCK) return 0;
    for (let k = off, end = off + this.sizes[a]!; k < end; k++) if (this.ids[k] === b) return this.weights[k]! - this.errors[k]!;
    return 0;
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
    for (let k = off, end = off + this.sizes[a]!; k < end; k++) visit(this.ids[k]!, this.weights[k]! - this.errors[k]!);
  }

  /** Multiplies every weight by `factor` (rebasing of time-decayed weights). */
  scale(factor: number): void {
    for (let k = 0; k < this.top; k++) {
      this.weights[k]! *= factor;
      this.errors[k]! *= factor;
    }
  }

  /** Bytes of the slabs actually handed out to items (blocks in use or on the free lists). */
  get usedBytes(): number {
    return this.top * 12 + this.offsets.byteLength + this.sizes.byteLength + this.capacities.byteLength;
  }

  /** Bytes held by the slabs and per-item arrays (for the memory figures in the docs). */
  get byteSize(): number {
    return this.ids.byteLength + this.weights.byteLength + this.errors.byteLength + this.offsets.byteLength + this.sizes.byteLength + this.capacities.byteLength;
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
    const newCap = oldCap === 0 ? Math.min(4, this.cap) : Math.min(oldCap * 2, this.cap);
    const off = this.allocate(newCap);
    const oldOff = this.offsets[a]!;
    if (oldOff !== NO_BLOCK) {
      const size = this.sizes[a]!;
      this.ids.copyWithin(off, oldOff, oldOff + size);
      this.weights.copyWithin(off, oldOff, oldOff + size);
      this.errors.copyWithin(off, oldOff, oldOff + size);
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
    if (this.top + capacity > this.ids.length) {
      // Grow by half (not double): the slabs are the bulk of a large website's model memory.
      let n = this.ids.length;
      while (this.top + capacity > n) n = Math.ceil(n * 1.5);
      const ids = new Int32Array(n);
      ids.set(this.ids.subarray(0, this.top));
      const weights = new Float32Array(n);
      weights.set(this.weights.subarray(0, this.top));
      const errors = new Float32Array(n);
      errors.set(this.errors.subarray(0, this.top));
      this.ids = ids;
      this.weights = weights;
      this.errors = errors;
    }
    const off = this.top;
    this.top += capacity;
    return off;
  }
}
