/**
 * The state of the recommendation models as named parts — typed arrays and plain values — that each
 * model class writes and reads back itself (`saveState` / `loadState`), so the checkpoint
 * (model-checkpoint.ts) knows no model's layout and a model's layout is written in one place: its class.
 * A model's state is saved exactly (array capacities and slab layouts included), so that a model loaded
 * from it goes on exactly as the saved one would have.
 * @module
 */
import type { SectionArray } from '../util/binary-sections.js';

type ArrayType<T extends SectionArray> = new (length: number) => T;

/** Named parts of saved model state. */
export class ModelState {
  constructor(
    /** The typed arrays, by name. */
    readonly arrays: Map<string, SectionArray> = new Map(),
    /** The plain values (JSON-serialisable), by name. */
    readonly values: Record<string, unknown> = {},
  ) {}

  /** Stores `array` (not copied: save a model only while it does not change). */
  putArray(name: string, array: SectionArray): void {
    this.arrays.set(name, array);
  }

  /** Stores a JSON-serialisable value. */
  putValue(name: string, value: unknown): void {
    this.values[name] = value;
  }

  /** The array `name`, of type `type`; throws when absent or of another type. */
  array<T extends SectionArray>(name: string, type: ArrayType<T>): T {
    const a = this.arrays.get(name);
    if (!(a instanceof type)) throw new Error(`model state lacks the array ${name}`);
    return a;
  }

  /** The number `name`; throws when absent or not a number. */
  number(name: string): number {
    const v = this.values[name];
    // JSON writes non-finite numbers as null: they are saved as strings (see putNumber).
    const n = typeof v === 'string' ? Number(v) : v;
    if (typeof n !== 'number') throw new Error(`model state lacks the number ${name}`);
    return n;
  }

  /** Stores a number, non-finite ones included (JSON has no NaN nor infinities). */
  putNumber(name: string, value: number): void {
    this.values[name] = Number.isFinite(value) ? value : String(value);
  }

  /** The value `name` as saved (the caller checks its shape). */
  value(name: string): unknown {
    if (!(name in this.values)) throw new Error(`model state lacks the value ${name}`);
    return this.values[name];
  }
}
