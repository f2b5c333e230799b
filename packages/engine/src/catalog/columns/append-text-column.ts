/**
 * A text column with docs appended at its end: their codes after the old docs' (per-doc arrays grown in
 * place, see `extendShared`), and the inverted column with new values' lists after the old ones and the
 * new docs of old values in its tail (`valueTail`). Shared by the append fast path (append-products.ts)
 * and the hierarchies' node columns (hierarchy-column.ts), which grow the same way.
 * @module
 */
import type { DocCodes, InvertedTail, TextColumn } from '../catalog-index.js';
import { copySingleCodes, multiValuedCodes, singleCodesType } from './text-column.js';
import { extendShared, sharedArray } from './shared-arrays.js';

/**
 * A text column with docs `n .. n + k) appended: their codes (`docCodes[j]` for new doc j) and the
 * inverted column with each new doc at the end of its codes' lists. Pure.
 */
export function appendTextColumn(column: TextColumn, n: number, docCodes: number[][], dictSize: number): TextColumn {
  const k = docCodes.length;
  let added = 0;
  let several = false;
  for (const codes of docCodes) {
    added += codes.length;
    if (codes.length > 1) several = true;
  }
  // Per-doc arrays grow at their end, in place when they can (see extendShared): the cost is the new docs'.
  let perDoc: DocCodes;
  if (column.single && !several) {
    // As wide as the grown dictionary needs (the width a build of the same products picks): in place
    // while the width holds, else copied wider.
    const single = column.single.constructor === singleCodesType(dictSize)
      ? extendShared(column.single, n + k) : copySingleCodes(column.single, dictSize, n + k);
    for (let j = 0; j < k; j++) single[n + j] = docCodes[j].length === 1 ? docCodes[j][0] : -1;
    perDoc = { single };
  } else {
    // Multi-valued already, or made so by a new product with several values, as a build would.
    const old = multiValuedCodes(column);
    const offsets = extendShared(old.offsets, n + k + 1);
    const codes = added === 0 ? old.codes : extendShared(old.codes, old.codes.length + added);
    let at = old.codes.length;
    for (let j = 0; j < k; j++) {
      for (const c of docCodes[j]) codes[at++] = c;
      offsets[n + j + 1] = at;
    }
    perDoc = { offsets, codes };
  }
  // The text sort ranks are per code: valid as long as no code was added.
  const sortRank = dictSize === column.dictSize ? column.sortRank : undefined;
  // No new doc has a value: the inverted column is the old one.
  if (added === 0) return { ...perDoc, dictSize, valueOffsets: column.valueOffsets, valueDocs: column.valueDocs, valueTail: column.valueTail, sortRank };
  // Inverted column: per code, its old docs then its new ones (new doc ids are the highest).
  const newDocs = new Map<number, number[]>();
  for (let j = 0; j < k; j++) {
    for (const c of docCodes[j]) {
      let list = newDocs.get(c);
      if (!list) newDocs.set(c, (list = []));
      list.push(n + j);
    }
  }
  const oldSize = column.dictSize;
  let { valueOffsets, valueDocs } = column;
  if (dictSize > oldSize) {
    // New values (a new title, say): their lists come after every old one, in place.
    let fresh = 0;
    for (let c = oldSize; c < dictSize; c++) fresh += newDocs.get(c)?.length ?? 0;
    valueOffsets = extendShared(column.valueOffsets, dictSize + 1);
    valueDocs = extendShared(column.valueDocs, column.valueDocs.length + fresh);
    for (let c = oldSize; c < dictSize; c++) {
      const list = newDocs.get(c) ?? [];
      valueDocs.set(list, valueOffsets[c]);
      valueOffsets[c + 1] = valueOffsets[c] + list.length;
    }
  }
  // Values older docs have (a brand, a category): the new docs go to the tail, so the lists of the
  // codes after them do not shift (one copy of the column per append, before).
  const valueTail = appendedTail(column.valueTail, newDocs, oldSize);
  return { ...perDoc, dictSize, valueOffsets, valueDocs, valueTail, sortRank };
}

/**
 * `tail` with the new docs (per code, ascending, every one higher than the tail's) of the codes below
 * `oldSize` added: the codes' lists merged, each its old tail docs then its new ones. Pure; costs the
 * tail (bounded by the merge threshold, which counts appended docs), not the column.
 */
function appendedTail(tail: InvertedTail | undefined, newDocs: ReadonlyMap<number, readonly number[]>, oldSize: number): InvertedTail | undefined {
  const touched = [...newDocs.keys()].filter((c) => c < oldSize).sort((a, b) => a - b);
  if (touched.length === 0) return tail;
  const oldCodes = tail?.codes ?? new Uint32Array(0);
  const codes: number[] = [];
  for (let i = 0, j = 0; i < oldCodes.length || j < touched.length;) {
    if (j === touched.length || (i < oldCodes.length && oldCodes[i] < touched[j])) codes.push(oldCodes[i++]);
    else if (i < oldCodes.length && oldCodes[i] === touched[j]) { codes.push(oldCodes[i++]); j++; }
    else codes.push(touched[j++]);
  }
  let entries = tail?.docs.length ?? 0;
  for (const c of touched) entries += newDocs.get(c)!.length;
  const out: InvertedTail = { codes: sharedArray(Uint32Array, codes.length), offsets: sharedArray(Uint32Array, codes.length + 1), docs: sharedArray(Uint32Array, entries) };
  let at = 0;
  for (let i = 0, o = 0; i < codes.length; i++) {
    const c = codes[i];
    out.codes[i] = c;
    if (tail && o < oldCodes.length && oldCodes[o] === c) {
      out.docs.set(tail.docs.subarray(tail.offsets[o], tail.offsets[o + 1]), at);
      at += tail.offsets[o + 1] - tail.offsets[o];
      o++;
    }
    const list = c < oldSize ? newDocs.get(c) : undefined;
    if (list) { out.docs.set(list, at); at += list.length; }
    out.offsets[i + 1] = at;
  }
  return out;
}
