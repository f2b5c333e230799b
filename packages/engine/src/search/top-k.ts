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
