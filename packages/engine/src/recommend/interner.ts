import type { ModelState } from './model-state.js';

/**
 * Interning of RefIds to dense integer ids, so the models hold numbers in typed arrays instead of
 * strings in maps. Ids are never reused: a product deleted from the catalog keeps its
 * number (its statistics stay, and it is filtered out at read time through the catalog).
 * @module
 */

/** Code units turned into a string by one call (String.fromCharCode takes its arguments on the stack). */
const NAME_PIECE = 4096;
/** Names kept as strings (a power of two: slots are `id & (size − 1)`). */
const NAME_CACHE_SIZE = 1024;
/**
 * Ids moved into the grown table per name interned while a growth is under way (see
 * {@link Interner}): a growth of a table of 2^k slots moves 2^(k−1) ids in 2^(k−1) / 8 interns, done
 * long before the grown table is half full (at 2^k ids).
 */
const MOVES_PER_INTERN = 8;
/** Ids (or table slots; 8× as many code units) per step of {@link Interner.saveStateSteps}. */
const SAVE_STEP = 65536;

/** Whether every code unit of `name` fits one byte. */
function latin1(name: string): boolean {
  for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) > 255) return false;
  return true;
}

/** Hash of a string's UTF-16 code units (FNV-1a, 32-bit; {@link Interner} hashes its stored names alike). */
function hashOf(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The hash of the code units `start` to `end` of `units`: {@link hashOf} of the name they hold. */
function hashOfUnits(units: Uint8Array | Uint16Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ units[i]!, 0x01000193);
  return h >>> 0;
}

/** Writes into `out` the hashes of names `from` to `to` of an interner's `units` and `ends`; returns `out`. */
function hashesOf(units: Uint8Array | Uint16Array, ends: Int32Array, from: number, to: number, out: Uint32Array): Uint32Array {
  for (let id = from; id < to; id++) out[id] = hashOfUnits(units, id === 0 ? 0 : ends[id - 1]!, ends[id]!);
  return out;
}

/**
 * A two-way mapping between strings and dense integers 0..size-1, held in one string table: the names'
 * UTF-16 code units back to back in one typed array, their ends and an open-addressing
 * table of ids — no JS string or Map entry per name (≈ 30 MB for a million RefIds of 7 characters
 * instead of ≈ 64 MB as a `Map` plus an array of strings). `name(id)` builds the string when asked, and
 * keeps the strings of the 1,024 ids named last. The code units take one byte each while every name is
 * Latin-1 (RefIds and style ids usually are: at 1M products, 11–16 MB less for the RefIds of 11
 * characters), two from the first name that is not (one copy). No hash is kept per name (4 bytes each:
 * ~7 MB at 1M products for the RefIds and style ids): a probe compares lengths and units, and a growth of
 * the table hashes the stored names again — a few at a time: the table of twice the slots takes the new
 * ids at once and the old ids {@link MOVES_PER_INTERN} per intern, a probe looking in the old table for
 * those not moved yet. Moved in one go, the 524,288 ids of the growth to 2^21 slots held the event loop
 * 90–200 ms inside a recommendation index's build step at 1M products (decisions/0074).
 */
export class Interner {
  /** Code units of all names, back to back: one byte each until a unit above 255 is met. */
  private units: Uint8Array | Uint16Array = new Uint8Array(4096);
  /** ends[i]: one past the last code unit of name i (name i starts at ends[i − 1], or 0). */
  private ends = new Int32Array(256);
  /** Open addressing (linear probing): id + 1 per slot, 0 = empty; at most half full. */
  private slots = new Int32Array(512);
  /** During a growth: the table before it, holding the ids from {@link moved} to {@link moveEnd} not in `slots` yet. */
  private previous: Int32Array | undefined;
  /** During a growth: the ids below this are in `slots`. */
  private moved = 0;
  /** During a growth: the ids the previous table held when it began. */
  private moveEnd = 0;
  private count = 0;
  /**
   * The strings of recently named ids, direct-mapped by id: a recommendation names the same popular items
   * call after call, and building a name makes a typed-array view and a string each time (a tenth of a
   * PopularItems call's allocations: docs/benchmarks.md, "Speed, round three"). -1 = empty.
   */
  private readonly cachedIds = new Int32Array(NAME_CACHE_SIZE).fill(-1);
  private readonly cachedNames: (string | undefined)[] = new Array<string | undefined>(NAME_CACHE_SIZE).fill(undefined);

  /**
   * Linear probing for `name`: its id when interned, else `-(slot + 1)` for the free slot where it
   * would go (one number, so the hot path allocates nothing).
   */
  private probe(name: string, hash: number): number {
    const mask = this.slots.length - 1;
    let at = hash & mask;
    for (let id1 = this.slots[at]!; id1 !== 0; id1 = this.slots[at]!) {
      if (this.equals(id1 - 1, name)) return id1 - 1;
      at = (at + 1) & mask;
    }
    // During a growth, an id not moved yet is only in the previous table.
    if (this.previous !== undefined) {
      const previous = this.previous;
      const previousMask = previous.length - 1;
      for (let i = hash & previousMask, id1 = previous[i]!; id1 !== 0; i = (i + 1) & previousMask, id1 = previous[i]!) {
        if (id1 - 1 >= this.moved && this.equals(id1 - 1, name)) return id1 - 1;
      }
    }
    return -at - 1;
  }

  /** The id of `name`, creating one when new. */
  intern(name: string): number {
    const hash = hashOf(name);
    const found = this.probe(name, hash);
    if (found >= 0) return found;
    const at = -found - 1;
    const id = this.count++;
    this.append(id, name);
    this.slots[at] = id + 1;
    if (this.previous !== undefined) this.move(MOVES_PER_INTERN);
    if (this.count * 2 > this.slots.length) this.grow();
    return id;
  }

  /** The id of `name`, or -1 when it was never interned. */
  lookup(name: string): number {
    const found = this.probe(name, hashOf(name));
    return found >= 0 ? found : -1;
  }

  /** The name of an id. */
  name(id: number): string {
    const slot = id & (NAME_CACHE_SIZE - 1);
    if (this.cachedIds[slot] === id) return this.cachedNames[slot]!;
    const name = this.decode(id);
    this.cachedIds[slot] = id;
    this.cachedNames[slot] = name;
    return name;
  }

  /** Builds the string of an id from the table. */
  private decode(id: number): string {
    const start = id === 0 ? 0 : this.ends[id - 1]!;
    const end = this.ends[id]!;
    // `apply` reads the typed array as an array-like (a spread walks an iterator: it took a third of a
    // PopularItems call's time); in pieces, as String.fromCharCode takes its arguments on the stack.
    if (end - start <= NAME_PIECE) return String.fromCharCode.apply(null, this.units.subarray(start, end) as unknown as number[]);
    let out = '';
    for (let i = start; i < end; i += NAME_PIECE) out += String.fromCharCode.apply(null, this.units.subarray(i, Math.min(end, i + NAME_PIECE)) as unknown as number[]);
    return out;
  }

  get size(): number {
    return this.count;
  }

  /** Writes the interner's state under `prefix` (see model-state.ts): its arrays, not copies. */
  saveState(state: ModelState, prefix: string): void {
    // The saved table holds every id: a growth under way is finished first.
    this.move(Infinity);
    state.putArray(`${prefix}.units`, this.units);
    state.putArray(`${prefix}.ends`, this.ends);
    state.putArray(`${prefix}.hashes`, hashesOf(this.units, this.ends, 0, this.count, new Uint32Array(this.ends.length)));
    state.putArray(`${prefix}.slots`, this.slots);
    state.putNumber(`${prefix}.count`, this.count);
  }

  /**
   * {@link saveState} in steps of {@link SAVE_STEP} ids or slots, as copies of the ids interned when its
   * copies begin (once a growth under way has ended): names may be interned between the steps (a
   * recommendation, an index build), and the saved state leaves those interned after that out. In one
   * step at 1.1M item ids, the rest of a growth, the hash of every name and the copies of 35 MB took
   * 23–111 ms of CPU (docs/benchmarks.md, "Big writes in steps at 1M").
   */
  *saveStateSteps(state: ModelState, prefix: string): Generator<void, void, void> {
    // The saved table holds every id: a growth under way is finished first, in steps (interns between
    // them move ids too, and may end it; none can begin another before it ends).
    while (this.previous !== undefined) {
      this.move(SAVE_STEP);
      yield;
    }
    // What the state is made of. Names interned from here on are appended past `count` (units and ends
    // beyond those of the saved ids, never rewritten), or into `units` and `ends` grown as copies; and
    // into free slots of `slots`, or of a grown table (this one is then left as it is).
    const count = this.count;
    const units = this.units;
    const ends = this.ends;
    const slots = this.slots;
    const savedUnits = units instanceof Uint8Array ? new Uint8Array(units.length) : new Uint16Array(units.length);
    const unitsEnd = count === 0 ? 0 : ends[count - 1]!;
    for (let at = 0; at < unitsEnd; at += SAVE_STEP * 8) {
      savedUnits.set(units.subarray(at, Math.min(unitsEnd, at + SAVE_STEP * 8)), at);
      yield;
    }
    const savedEnds = new Int32Array(ends.length);
    const hashes = new Uint32Array(ends.length);
    for (let from = 0; from < count; from += SAVE_STEP) {
      const to = Math.min(count, from + SAVE_STEP);
      savedEnds.set(ends.subarray(from, to), from);
      // The layout of before (model checkpoint format 2): a hash per name, made for the checkpoint only.
      hashesOf(units, ends, from, to, hashes);
      yield;
    }
    const savedSlots = new Int32Array(slots.length);
    for (let from = 0; from < slots.length; from += SAVE_STEP) {
      const to = Math.min(slots.length, from + SAVE_STEP);
      // A slot taken by an id interned since: empty in the saved table, as it was when this began.
      for (let i = from; i < to; i++) {
        const id1 = slots[i]!;
        savedSlots[i] = id1 > count ? 0 : id1;
      }
      yield;
    }
    state.putArray(`${prefix}.units`, savedUnits);
    state.putArray(`${prefix}.ends`, savedEnds);
    state.putArray(`${prefix}.hashes`, hashes);
    state.putArray(`${prefix}.slots`, savedSlots);
    state.putNumber(`${prefix}.count`, count);
  }

  /** Replaces the interner's state with the one saved under `prefix`. */
  loadState(state: ModelState, prefix: string): void {
    const count = state.number(`${prefix}.count`);
    const ends = state.array(`${prefix}.ends`, Int32Array);
    const hashes = state.array(`${prefix}.hashes`, Uint32Array);
    const slots = state.array(`${prefix}.slots`, Int32Array);
    // One-byte units since 2026-11-29; checkpoints before hold two-byte ones (both read as they are).
    const saved = state.arrays.get(`${prefix}.units`);
    const units = saved instanceof Uint8Array ? saved : state.array(`${prefix}.units`, Uint16Array);
    if (count > ends.length || hashes.length !== ends.length || 2 * count > slots.length || (count > 0 && ends[count - 1]! > units.length)) {
      throw new Error(`model state ${prefix}: the interner's arrays do not fit together`);
    }
    this.units = units;
    this.ends = ends;
    this.slots = slots;
    this.previous = undefined;
    this.count = count;
    // The loaded state may give the cached ids other names.
    this.cachedIds.fill(-1);
    this.cachedNames.fill(undefined);
  }

  private equals(id: number, name: string): boolean {
    const start = id === 0 ? 0 : this.ends[id - 1]!;
    if (this.ends[id]! - start !== name.length) return false;
    const units = this.units;
    for (let i = 0; i < name.length; i++) if (units[start + i] !== name.charCodeAt(i)) return false;
    return true;
  }

  private append(id: number, name: string): void {
    const start = id === 0 ? 0 : this.ends[id - 1]!;
    const end = start + name.length;
    const wide = this.units instanceof Uint8Array && !latin1(name);
    if (end > this.units.length || wide) {
      let n = this.units.length;
      while (n < end) n = Math.ceil(n * 1.5);
      const units = wide || this.units instanceof Uint16Array ? new Uint16Array(n) : new Uint8Array(n);
      units.set(this.units.subarray(0, start));
      this.units = units;
    }
    for (let i = 0; i < name.length; i++) this.units[start + i] = name.charCodeAt(i);
    if (id >= this.ends.length) {
      const n = Math.ceil(this.ends.length * 1.5);
      const ends = new Int32Array(n);
      ends.set(this.ends);
      this.ends = ends;
    }
    this.ends[id] = end;
  }

  /** The hash of name `id` as {@link hashOf} gives it, from its stored units. */
  private hashAt(id: number): number {
    return hashOfUnits(this.units, id === 0 ? 0 : this.ends[id - 1]!, this.ends[id]!);
  }

  /**
   * Begins a growth: a table of twice the slots, empty but for the ids {@link move} puts in it; the
   * previous table is read meanwhile for the ids not moved yet. One still under way (it cannot be with
   * {@link MOVES_PER_INTERN} per intern) is finished first.
   */
  private grow(): void {
    this.move(Infinity);
    this.previous = this.slots;
    this.slots = new Int32Array(this.slots.length * 2);
    this.moved = 0;
    this.moveEnd = this.count;
    this.move(MOVES_PER_INTERN);
  }

  /** Moves up to `n` more ids of the growth under way into the grown table; the last ends the growth. */
  private move(n: number): void {
    if (this.previous === undefined) return;
    const slots = this.slots;
    const mask = slots.length - 1;
    const end = Math.min(this.moveEnd, this.moved + n);
    for (let id = this.moved; id < end; id++) {
      let at = this.hashAt(id) & mask;
      while (slots[at] !== 0) at = (at + 1) & mask;
      slots[at] = id + 1;
    }
    this.moved = end;
    if (end === this.moveEnd) this.previous = undefined;
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
  /** Writes the array under `name` (see model-state.ts). */
  saveState(state: ModelState, name: string): void {
    state.putArray(name, this.data);
  }

  /** Replaces the array with the one saved under `name`. */
  loadState(state: ModelState, name: string): void {
    this.data = state.array(name, Float64Array);
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
