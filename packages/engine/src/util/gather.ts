/**
 * Typed arrays of values picked by position: what `Int32Array.from(at, (i) => values[i])` makes,
 * without its callback per element (through the iteration protocol, measured at several times the
 * cost of the loop: most of a small text search's top-k step).
 * @module
 */

/** `out[k] = values[at[k]]` for every `k` of `at`. */
export function gatherInt32(values: ArrayLike<number>, at: ArrayLike<number>): Int32Array {
  const out = new Int32Array(at.length);
  for (let k = 0; k < out.length; k++) out[k] = values[at[k]];
  return out;
}

/** `out[k] = values[at[k] - base]` for every `k` of `at` (`base` 0 unless the values start at an offset). */
export function gatherFloat64(values: ArrayLike<number>, at: ArrayLike<number>, base = 0): Float64Array {
  const out = new Float64Array(at.length);
  for (let k = 0; k < out.length; k++) out[k] = values[at[k] - base];
  return out;
}
