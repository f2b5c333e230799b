/**
 * A text column's dictionary (code → value, codes in first-seen order) with its value → code table,
 * append-only and shared between catalog versions.
 *
 * A version sees the first `size` values of a store that later versions extend in place, as the growable
 * per-doc columns are extended (shared-arrays.ts `extendShared`): an append or a value patch writes its
 * new values after the last ones instead of copying a million titles into a new array. Only the latest
 * view of a store may be extended (its size is the store's length); extending an older one (a version
 * built, then dropped) copies. The value → code table is an open-addressing hash table (linear probing,
 * code + 1 per slot in an Int32Array, at most half full), kept with the store and filled as values are
 * added — by the build itself, so no first scope or append derives a map of a million entries; 8–16
 * bytes a value. Older versions read the same table and ignore the codes at or past their size.
 *
 * Only the owning thread reads dictionaries (workers get codes): values stay JS strings, read as they
 * are by product decoding and facet labels.
 * @module
 */
import { STEP, type Steps } from '../steps.js';
import { sharedArray } from './shared-arrays.js';
import type { StringLookup } from './string-map.js';

/** Slots of the smallest table (a power of two). */
const MIN_SLOTS = 16;

/** The shared part: values and table, extended in place by the latest view's writer. */
interface DictionaryStore {
  readonly values: string[];
  /** Per slot, code + 1 (0: empty); a power of two long, at most half full. Absent until first needed when loaded. */
  slots?: Int32Array;
}

/** A hash of every UTF-16 unit of `value` (FNV-1a, then a final mix so low bits spread). */
function hashOf(value: string): number {
  return hashOfRange(value, 0, value.length);
}

/** {@link hashOf} of `text.slice(start, end)`, read in place. */
function hashOfRange(text: string, start: number, end: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x45d9f3b);
  return h ^ (h >>> 16);
}

/** Whether `value` is `text.slice(start, end)`, compared in place (a whole `text` by `===`). */
function equalsRange(value: string, text: string, start: number, end: number): boolean {
  if (start === 0 && end === text.length) return value === text;
  if (value.length !== end - start) return false;
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) !== text.charCodeAt(start + i)) return false;
  return true;
}

/** Puts `code` (of hash `hash`) into the first free slot of its probe sequence (linear probing). */
function place(slots: Int32Array, hash: number, code: number): void {
  const mask = slots.length - 1;
  let s = hash & mask;
  while (slots[s] !== 0) s = (s + 1) & mask;
  slots[s] = code + 1;
}

/** Slots for `count` values with room to double: a power of two at least twice `count`. */
function slotsFor(count: number): number {
  let n = MIN_SLOTS;
  while (n < 2 * count) n *= 2;
  return n;
}

/**
 * Indexes values `from .. values.length)` of `store`; all of them in a fresh table when there is none or
 * when it would be over half full (in one go: writers reserve room in steps first, see
 * {@link DictionaryWriter.reserveSteps}).
 */
function indexValues(store: DictionaryStore, from: number): void {
  const count = store.values.length;
  if (!store.slots || store.slots.length < 2 * count) {
    store.slots = sharedArray(Int32Array, slotsFor(count));
    from = 0;
  }
  for (let c = from; c < count; c++) place(store.slots, hashOf(store.values[c]), c);
}

/**
 * The highest code below `limit` of `value` (hash `hash`) in `store`, or -1: the whole probe sequence is
 * read, so a value added twice (refId's) gives its latest code a version sees. Indexes the store first
 * when it has no table yet.
 */
function highestCode(store: DictionaryStore, value: string, hash: number, limit: number): number {
  return highestCodeOfRange(store, value, 0, value.length, hash, limit);
}

/** {@link highestCode} of `text.slice(start, end)` (hash `hash`), compared in place. */
function highestCodeOfRange(store: DictionaryStore, text: string, start: number, end: number, hash: number, limit: number): number {
  if (!store.slots) indexValues(store, 0);
  const slots = store.slots!;
  const mask = slots.length - 1;
  let found = -1;
  for (let s = hash & mask; slots[s] !== 0; s = (s + 1) & mask) {
    const code = slots[s] - 1;
    if (code < limit && code > found && equalsRange(store.values[code], text, start, end)) found = code;
  }
  return found;
}

/** The latest view of `store` (set by {@link Dictionary}: its constructor stays private to the module's classes). */
let latestView: (store: DictionaryStore) => Dictionary;

/** One version's dictionary: the first {@link size} values of its store. Immutable. */
export class Dictionary implements StringLookup<number> {
  static {
    latestView = (store) => new Dictionary(store, store.values.length);
  }

  private constructor(private readonly store: DictionaryStore, readonly size: number) {}

  /** A dictionary of no value. */
  static empty(): Dictionary {
    return new Dictionary({ values: [] }, 0);
  }

  /**
   * The dictionary of `values` (taken, not copied). Its value table is built on first lookup or by
   * {@link indexSteps} (a loaded snapshot builds it in the background, not on its first searches' path).
   */
  static of(values: readonly string[]): Dictionary {
    // Taken, not copied: the caller gives the array up (a snapshot's parsed JSON), and only writers of
    // this store's latest view push to it.
    return new Dictionary({ values: values as string[] }, values.length);
  }

  /** The value of code `code` (< {@link size}). */
  at(code: number): string {
    return this.store.values[code];
  }

  /**
   * The values, code by code, as an array of the caller's: a copy, since later versions push to the
   * store's (a snapshot encodes them after yielding to appends).
   */
  values(): string[] {
    return this.store.values.slice(0, this.size);
  }

  /** Builds the value table if it is not yet, {@link STEP} values at a time (see {@link of}). */
  *indexSteps(): Steps<void> {
    // Reserving no room builds a missing table (and adds no value: any view may do it).
    if (!this.store.slots) yield* new DictionaryWriter(this.store).reserveSteps(0);
  }

  /**
   * The code of `value` in this version, or -1. When a value was added twice (refId's, re-appended
   * products), the highest code below {@link size}.
   */
  codeOf(value: string): number {
    return highestCode(this.store, value, hashOf(value), this.size);
  }

  /** {@link codeOf} as a lookup: undefined when absent. */
  get(value: string): number | undefined {
    const code = this.codeOf(value);
    return code < 0 ? undefined : code;
  }

  has(value: string): boolean {
    return this.codeOf(value) >= 0;
  }

  /**
   * A writer adding values after this version's: in place when this is the latest view of its store
   * (no copy: older versions keep their size), else on a copy of this version's values.
   */
  writer(): DictionaryWriter {
    const { store, size } = this;
    if (store.values.length === size) return new DictionaryWriter(store);
    // The copy's table is built by the writer's reserveSteps (in steps), or on its first lookup.
    return new DictionaryWriter({ values: store.values.slice(0, size) });
  }
}

/**
 * Adds values to a dictionary's store (a build, an append, a value patch); {@link dictionary} is the
 * version holding them all. Each value added is indexed at once, so no later lookup derives a table.
 */
export class DictionaryWriter {
  constructor(private readonly store: DictionaryStore) {}

  /** Values so far. */
  get size(): number {
    return this.store.values.length;
  }

  /** The value of code `code`. */
  at(code: number): string {
    return this.store.values[code];
  }

  /** The code of `value`: its existing one, or the next one (first-seen order, as a build numbers them). */
  codeFor(value: string): number {
    const store = this.store;
    const hash = hashOf(value);
    const found = highestCode(store, value, hash, store.values.length);
    return found >= 0 ? found : this.added(value, hash);
  }

  /**
   * {@link codeFor} of `text.slice(start, end)`, compared in place: the value is cut out of `text` only
   * when it is new (a build numbering the words of a million titles makes a string per distinct word,
   * not per word: `TermNumbering`).
   */
  codeForRange(text: string, start: number, end: number): number {
    const store = this.store;
    const hash = hashOfRange(text, start, end);
    const found = highestCodeOfRange(store, text, start, end, hash, store.values.length);
    return found >= 0 ? found : this.added(text.slice(start, end), hash);
  }

  /** Adds `value` (hash `hash`, not in the store) with the next code. */
  private added(value: string, hash: number): number {
    const store = this.store;
    const code = store.values.length;
    store.values.push(value);
    if (2 * (code + 1) > store.slots!.length) indexValues(store, code);
    else place(store.slots!, hash, code);
    return code;
  }

  /**
   * Makes room in the value table for `count` more values, rehashing {@link STEP} slots per step when
   * it must grow: a growth done by {@link codeFor} itself rehashes every value in one go (tens of
   * milliseconds at a million values), which a time-sliced writer avoids by reserving first. Older versions keep reading the previous table until the new one replaces it.
   */
  *reserveSteps(count: number): Steps<void> {
    const store = this.store;
    const before = store.values.length;
    const needed = before + count;
    if (store.slots && store.slots.length >= 2 * needed) return;
    const slots = sharedArray(Int32Array, slotsFor(needed));
    for (let c = 0; c < before; c++) {
      place(slots, hashOf(store.values[c]), c);
      if (c % STEP === STEP - 1) yield;
    }
    // Only the latest view's writer adds values, and it waited for this; should another have added
    // some meanwhile, they are indexed too.
    for (let c = before; c < store.values.length; c++) place(slots, hashOf(store.values[c]), c);
    store.slots = slots;
  }

  /** Adds `value` with a new code even if present (refId's dictionary: a re-appended product's refId). */
  add(value: string): number {
    const store = this.store;
    const code = store.values.length;
    store.values.push(value);
    if (store.slots) indexValues(store, code);
    return code;
  }

  /** The version holding every value added so far. */
  dictionary(): Dictionary {
    return latestView(this.store);
  }
}
