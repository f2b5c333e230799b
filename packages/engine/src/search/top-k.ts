/**
 * Bounded selection of the best `k` doc ids under a comparator: a max-heap whose root is the worst
 * kept doc, so each candidate costs one comparison unless it beats the root. No full sort, no
 * per-document objects.
 * @module
 */

/** Negative when doc `a` comes before doc `b`. Must be a total order (break ties by doc id). */
export type DocComparator = (a: number, b: number) => number;

/** Keeps the `capacity` best docs seen by {@link TopK.offer}. */
export class TopK {
  private readonly heap: Int32Array;
  private size = 0;
  constructor(private readonly capacity: number, private readonly before: DocComparator) {
    this.heap = new Int32Array(Math.max(0, capacity));
  }

  offer(doc: number): void {
    const heap = this.heap;
    if (this.size < this.capacity) {
      // Sift up: the parent must be worse than (after) the child.
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (this.before(heap[parent], doc) >= 0) break;
        heap[i] = heap[parent];
        i = parent;
      }
      heap[i] = doc;
      return;
    }
    if (this.capacity === 0 || this.before(doc, heap[0]) >= 0) return;
    // Replace the worst and sift down.
    const n = this.size;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const worse = r < n && this.before(heap[l], heap[r]) < 0 ? r : l;
      if (this.before(heap[worse], doc) <= 0) break;
      heap[i] = heap[worse];
      i = worse;
    }
    heap[i] = doc;
  }

  /** The kept doc that comes last (the next to give way), or -1 while fewer than the capacity are kept. */
  worst(): number {
    return this.size === this.capacity && this.capacity > 0 ? this.heap[0] : -1;
  }

  /** The kept docs, best first. */
  sorted(): Int32Array {
    return this.heap.slice(0, this.size).sort(this.before);
  }
}

/**
 * The best `limit` of the positions `0 … total - 1` by `scores` descending, the lower position first
 * among equal scores, best first: what {@link TopK} keeps under a comparator of relevance then doc for
 * a match list (its docs ascending, so doc order is position order), without calling a comparator — a
 * heap of (score, position) pairs compared inline (its root the worst kept), emptied worst first into
 * the result. Positions are offered in ascending order, so one scoring the same as the worst kept one
 * comes after it and is passed over. Scores must not be NaN (match scores never are).
 */
export function topByScore(scores: Float64Array, total: number, limit: number): Int32Array {
  const heapScores = new Float64Array(limit);
  const heapPositions = new Int32Array(limit);
  let n = 0;
  for (let k = 0; k < total; k++) {
    const score = scores[k];
    if (n < limit) {
      // Sift up: a parent worse than the new entry stays above it.
      let i = n++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (heapScores[parent] < score || (heapScores[parent] === score && heapPositions[parent] > k)) break;
        heapScores[i] = heapScores[parent];
        heapPositions[i] = heapPositions[parent];
        i = parent;
      }
      heapScores[i] = score;
      heapPositions[i] = k;
    } else if (limit > 0 && score > heapScores[0]) {
      siftDown(heapScores, heapPositions, n, score, k);
    }
  }
  const best = new Int32Array(n);
  for (let size = n; size > 0; size--) {
    best[size - 1] = heapPositions[0];
    // The last entry refills the root of the heap one smaller.
    siftDown(heapScores, heapPositions, size - 1, heapScores[size - 1], heapPositions[size - 1]);
  }
  return best;
}

/** Puts (score, position) at the root of the heap's first `n` entries and sifts it down (worse children rise). */
function siftDown(heapScores: Float64Array, heapPositions: Int32Array, n: number, score: number, position: number): void {
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) break;
    const r = l + 1;
    const worse = r < n && (heapScores[r] < heapScores[l] || (heapScores[r] === heapScores[l] && heapPositions[r] > heapPositions[l])) ? r : l;
    if (!(heapScores[worse] < score || (heapScores[worse] === score && heapPositions[worse] > position))) break;
    heapScores[i] = heapScores[worse];
    heapPositions[i] = heapPositions[worse];
    i = worse;
  }
  heapScores[i] = score;
  heapPositions[i] = position;
}
