/**
 * refId → doc of one catalog version, read from the refId column's dictionary (its codes are doc ids,
 * see `buildTextColumn`): the latest doc of a refId the version sees, unless tombstoned. The dictionary
 * and its value table are shared with the versions before and after (dictionary.ts), so a new version
 * costs this small object, not a copy of a million-entry map (or of the shards the new refIds fall in).
 * @module
 */
import type { Dictionary } from './dictionary.js';
import type { StringLookup } from './string-map.js';

/** refId → live doc of a version: its refId dictionary minus its tombstones. Immutable. */
export class RefIdDocs implements StringLookup<number> {
  /**
   * `refIds`: the refId column's dictionary (code = doc, a re-appended product's refId added again);
   * `deleted`: the version's tombstone bitset (absent: none); `size`: its live docs.
   */
  constructor(private readonly refIds: Dictionary, private readonly deleted: Uint32Array | undefined, readonly size: number) {}

  get(refId: string): number | undefined {
    // A replaced product's tombstoned doc has a lower code than its new one: the latest is the live one.
    const doc = this.refIds.codeOf(refId);
    if (doc < 0) return undefined;
    const deleted = this.deleted;
    return deleted && (deleted[doc >>> 5] & (1 << (doc & 31))) !== 0 ? undefined : doc;
  }

  has(refId: string): boolean {
    return this.get(refId) !== undefined;
  }

  /** The live (refId, doc) pairs, by doc. */
  *entries(): IterableIterator<[string, number]> {
    for (let doc = 0; doc < this.refIds.size; doc++) {
      const refId = this.refIds.at(doc);
      if (this.get(refId) === doc) yield [refId, doc];
    }
  }
}
