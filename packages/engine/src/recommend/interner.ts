/**
 * Interning of RefIds (and customer ids) to dense integer ids, so the models hold numbers in typed
 * arrays instead of strings in maps. Ids are never reused: a product deleted from the catalog keeps its
 * number (its statistics stay, and it is filtered out at read time through the catalog).
 * @module
 */

/** A two-way mapping between strings and dense integers 0..size-1. */
export class Interner {
  private readonly byName = new Map<string, number>();
  private readonly names: string[] = [];

  /** The id of `name`, creating one when new. */
  intern(name: string): number {
    let id = this.byName.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.byName.set(name, id);
      this.names.push(name);
    }
    return id;
  }

  /** The id of `name`, or -1 when it was never interned. */
  lookup(name: string): number {
    return this.byName.get(name) ?? -1;
  }

  /** The name of an id. */
  name(id: number): string {
    return this.names[id]!;
  }

  get size(): number {
    return this.names.length;
  }
}

/** A growable Float64Array indexed by dense id (missing entries read as 0). */
export class GrowableFloat64 {
  private data: Float64Array;
  constructor(initial = 1024) {
    this.data = new Float64Array(initial);
  }
  get(i: number): number {
    return i < this.data.length ? this.data[i]! : 0;
  }
  add(i: number, delta: number): void {
    this.ensure(i);
    this.data[i]! += delta;
  }
  set(i: number, value: number): void {
    this.ensure(i);
    this.data[i] = value;
  }
  /** Multiplies every entry (used to rebase exponentially growing weights). */
  scale(factor: number): void {
    for (let i = 0; i < this.data.length; i++) this.data[i]! *= factor;
  }
  private ensure(i: number): void {
    if (i < this.data.length) return;
    let n = this.data.length;
    while (n <= i) n *= 2;
    const next = new Float64Array(n);
    next.set(this.data);
    this.data = next;
  }
}
