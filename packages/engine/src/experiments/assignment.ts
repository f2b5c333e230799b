/**
 * Sticky assignment of customers to experiment variants: a hash of the experiment id and the
 * customer id picks the variant in proportion to the variants' weights. The same customer always gets
 * the same variant of an experiment, on every replica and after every restart, with nothing stored;
 * two experiments assign independently because the experiment id is part of the hash.
 * @module
 */
import { createHash } from 'node:crypto';

/**
 * A uniform number in [0, 1) for (experimentId, customerId): the first 52 bits of SHA-256 over both,
 * separated by a byte no id holds (so ("ab", "c") and ("a", "bc") differ).
 */
export function assignmentPoint(experimentId: string, customerId: string): number {
  const digest = createHash('sha256').update(experimentId).update('\u0000').update(customerId).digest();
  // 52 bits: 4 bytes as the high part, 20 bits of the next 3 bytes as the low part (exact in a double).
  const high = digest.readUInt32BE(0);
  const low = digest.readUIntBE(4, 3) >>> 4;
  return (high * 2 ** 20 + low) / 2 ** 52;
}

/**
 * The index of the variant a customer is assigned to, given the variants' relative weights
 * (positive numbers; shares are weight / sum of weights).
 */
export function assignVariant(experimentId: string, customerId: string, weights: readonly number[]): number {
  const total = weights.reduce((sum, w) => sum + w, 0);
  let point = assignmentPoint(experimentId, customerId) * total;
  for (let i = 0; i < weights.length; i++) {
    point -= weights[i]!;
    if (point < 0) return i;
  }
  return weights.length - 1;
}
