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

/** This thread's heaps ({@link ScoreHeap.reused}): without, then with the frequencies. */
const reusedHeaps: (ScoreHeap | undefined)[] = [undefined, undefined];

/**
 * The best `limit` (score, doc) pairs offered, score descending then doc ascending, in a heap whose
 * root is the worst kept, compared inline (no comparator call); with, when asked, each one's weighted
 * term frequency (block-max top-k, top-of-term.ts, reads the worst kept one's). Docs must be offered in
 * ascending order: one scoring the same as the root comes after it and is passed over. Scores must not
 * be NaN (match scores never are).
 */
export class ScoreHeap {
  readonly scores: Float64Array;
  readonly docs: Int32Array;
  /** Each kept doc's weighted term frequency (undefined: not kept). */
  readonly tfws: Float64Array | undefined;
  /** How many it keeps (at most the arrays' length). */
  limit: number;
  size = 0;
  constructor(limit: number, keepTfws: boolean) {
    this.limit = limit;
    this.scores = new Float64Array(limit);
    this.docs = new Int32Array(limit);
    this.tfws = keepTfws ? new Float64Array(limit) : undefined;
  }

  /**
   * An empty heap keeping `limit`, one of this thread's, reused by its next search: a search allocated
   * two or three typed arrays of the page's size for its heap (each a backing store of its own, and
   * garbage after the search; 4 % of a never-asked search's CPU in the constructor, decision 0066).
   * Safe because a heap is filled and drained within one synchronous call (`topByScore`, `rankOneTerm`).
   */
  static reused(limit: number, keepTfws: boolean): ScoreHeap {
    const k = keepTfws ? 1 : 0;
    let heap = reusedHeaps[k];
    if (heap === undefined || heap.scores.length < limit) reusedHeaps[k] = heap = new ScoreHeap(limit, keepTfws);
    heap.limit = limit;
    heap.size = 0;
    return heap;
  }

  get full(): boolean {
    return this.size === this.limit;
  }

  /** Keeps (score, doc, tfw) when it is among the best `limit` so far (`tfw` unread without the frequencies). */
  offer(score: number, doc: number, tfw: number): void {
    const { scores, docs, tfws } = this;
    if (this.size < this.limit) {
      // Sift up: a parent scoring the same has a lower doc, so it is the better and the new one rises.
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (scores[parent] < score) break;
        scores[i] = scores[parent]; docs[i] = docs[parent];
        if (tfws !== undefined) tfws[i] = tfws[parent];
        i = parent;
      }
      scores[i] = score; docs[i] = doc;
      if (tfws !== undefined) tfws[i] = tfw;
    } else if (this.limit > 0 && score > scores[0]) this.siftDown(this.size, score, doc, tfw);
  }

  /** Puts (score, doc, tfw) at the root of the first `n` entries and sifts it down (worse children rise). */
  private siftDown(n: number, score: number, doc: number, tfw: number): void {
    const { scores, docs, tfws } = this;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const worse = r < n && (scores[r] < scores[l] || (scores[r] === scores[l] && docs[r] > docs[l])) ? r : l;
      if (!(scores[worse] < score || (scores[worse] === score && docs[worse] > doc))) break;
      scores[i] = scores[worse]; docs[i] = docs[worse];
      if (tfws !== undefined) tfws[i] = tfws[worse];
      i = worse;
    }
    scores[i] = score; docs[i] = doc;
    if (tfws !== undefined) tfws[i] = tfw;
  }

  /** The kept docs and scores, best first (empties the heap: the last entry refills the root of the heap one smaller). */
  drain(): { topDocs: Int32Array; topScores: Float64Array } {
    const n = this.size;
    const topDocs = new Int32Array(n);
    const topScores = new Float64Array(n);
    const { scores, docs, tfws } = this;
    for (let size = n; size > 0; size--) {
      topDocs[size - 1] = docs[0];
      topScores[size - 1] = scores[0];
      this.siftDown(size - 1, scores[size - 1], docs[size - 1], tfws === undefined ? 0 : tfws[size - 1]);
    }
    this.size = 0;
    return { topDocs, topScores };
  }
}

/**
 * The best `limit` matches of a match list (`docs[0, total)` ascending, `scores` theirs) by score
 * descending, the lower doc first among equal scores, best first, with their scores: what
 * {@link TopK} keeps under a comparator of relevance then doc, without calling a comparator — a
 * {@link ScoreHeap} of (score, doc), whose pairs are the page (no positions gathered into docs and
 * scores afterwards: two page-sized arrays fewer per search).
 */
export function topByScore(docs: Int32Array, scores: Float64Array, total: number, limit: number): { topDocs: Int32Array; topScores: Float64Array } {
  const heap = ScoreHeap.reused(limit, false);
  for (let k = 0; k < total; k++) heap.offer(scores[k], docs[k], 0);
  return heap.drain();
}
