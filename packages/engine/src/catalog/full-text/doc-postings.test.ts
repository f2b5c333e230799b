/**
 * The one writer of a full-text index's per-doc data (doc-postings.ts): against a plain count of the
 * words given, and on the three paths that write through it — a build, an append and a merge — with
 * keys and words named like Object.prototype members (the case a fix had to be made twice for when
 * builds and appends each had their own reader and writer).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { executeSearch } from '../../search/execute-search.js';
import type { Product, SearchRequest } from '../../types.js';
import { Catalog } from '../catalog.js';
import { contents } from '../__tests__/version-contents.js';
import { DocPostingsWriter, PostingEntries, TermNumbering, TOKEN_WORK } from './doc-postings.js';
import { lengthAt, newFieldLengths } from './field-lengths.js';
import { MAX_FIELD_LENGTH, MAX_TF } from './length-norms.js';
import { NormKeyBuilder } from './norm-keys.js';

/** Words named like members of Object.prototype, beside ordinary ones. */
const PROTO_WORDS = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf'];
const WORDS = [...PROTO_WORDS, 'mug', 'cup', 'red'];

describe('the doc postings writer', () => {
  it('writes per doc and field its length, one entry per distinct word with its frequency, and the length totals', () => {
    fc.assert(fc.property(
      fc.array(fc.array(fc.array(fc.constantFrom(...WORDS), { maxLength: 12 }), { minLength: 2, maxLength: 2 }), { minLength: 1, maxLength: 12 }),
      fc.array(fc.nat(40), { minLength: 2, maxLength: 2 }),
      (docs, before) => {
        const fields = 2;
        const numbering = new TermNumbering();
        const ids = docs.map((perField) => perField.map((words) => words.map((w) => numbering.idOf(w))));
        const lengths = newFieldLengths(fields, docs.length);
        const normKeys = new NormKeyBuilder();
        const given = before.slice();
        const entries = new PostingEntries();
        const writer = new DocPostingsWriter(numbering.terms.length, lengths, fields, normKeys, { tokens: before, docs: before }, entries);
        docs.forEach((perField, d) => perField.forEach((words, f) => {
          if (words.length === 0) return;
          writer.beginField();
          for (const t of ids[d][f]) writer.add(t);
          const distinct = new Set(words).size;
          expect(writer.endField(d, f)).toBe(words.length + distinct * TOKEN_WORK);
        }));
        // Expected: per doc and field, each distinct word once (first-seen order) with its count.
        const expected: [string, number, number, number, number][] = [];
        docs.forEach((perField, d) => perField.forEach((words, f) => {
          const counts = new Map<string, number>();
          for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
          for (const [w, tf] of counts) expected.push([w, d, f, tf, words.length]);
        }));
        const table = normKeys.table();
        const written = Array.from({ length: entries.length }, (_, i) => {
          const key = entries.keys.get(i);
          return [numbering.terms[entries.terms.get(i)], entries.docs.get(i), table.keyFields[key], table.keyTfs[key], table.keyLengths[key]];
        });
        expect(written).toEqual(expected);
        docs.forEach((perField, d) => perField.forEach((words, f) => expect(lengthAt(lengths, fields, f, d)).toBe(words.length)));
        const tokens = [0, 1].map((f) => before[f] + docs.reduce((sum, perField) => sum + perField[f].length, 0));
        const withField = [0, 1].map((f) => before[f] + docs.filter((perField) => perField[f].length > 0).length);
        expect(writer.lengthTotals()).toEqual({ tokens, docs: withField });
        // The totals given are the caller's (an append passes the base version's): copied, not added to.
        expect(before).toEqual(given);
      },
    ));
  });

  it('saturates term frequencies and field lengths where the index stores them in 16 bits', () => {
    const numbering = new TermNumbering();
    const lengths = newFieldLengths(1, 1);
    const normKeys = new NormKeyBuilder();
    const entries = new PostingEntries();
    const writer = new DocPostingsWriter(2, lengths, 1, normKeys, { tokens: [0], docs: [0] }, entries);
    const word = numbering.idOf('constructor');
    const other = numbering.idOf('mug');
    writer.beginField();
    for (let i = 0; i < 70_000; i++) writer.add(word);
    writer.add(other);
    writer.endField(0, 0);
    const table = normKeys.table();
    expect([table.keyTfs[entries.keys.get(0)], table.keyTfs[entries.keys.get(1)]]).toEqual([MAX_TF, 1]);
    expect(lengthAt(lengths, 1, 0, 0)).toBe(MAX_FIELD_LENGTH);
    expect(writer.lengthTotals()).toEqual({ tokens: [MAX_FIELD_LENGTH], docs: [1] });
  });
});

/** Products with keys and words named like Object.prototype members, some lacking those keys. */
function protoProducts(from: number, to: number): Product[] {
  return Array.from({ length: to - from }, (_, k) => {
    const i = from + k;
    const p: Product = { refId: `p${i}`, title: `${PROTO_WORDS[i % PROTO_WORDS.length]} mug ${PROTO_WORDS[(i * 5) % PROTO_WORDS.length]}` };
    // Object.assign: the fields' names are typed as Object.prototype's methods on a plain property write.
    if (i % 3 === 0) Object.assign(p, { constructor: i });
    if (i % 4 === 1) Object.assign(p, { toString: `red ${PROTO_WORDS[i % 2]}` });
    if (i % 5 === 2) Object.assign(p, { valueOf: [`cup`, `__proto__ ${i % 3}`] });
    return p;
  });
}

async function answers(catalog: Catalog): Promise<unknown[]> {
  const requests: SearchRequest[] = [
    ...PROTO_WORDS.map((q): SearchRequest => ({ website_id: 'w', client: 'c', q, start: 0, size: 20 })),
    { website_id: 'w', client: 'c', q: 'mug', start: 0, size: 20, aggregations: ['toString', 'valueOf'], range_fields: ['constructor'] },
  ];
  return Promise.all(requests.map((r) => executeSearch(catalog, r)));
}

describe('one writer for builds, appends and merges', () => {
  it('gives a version equal to a fresh build on every path, with keys and words named like Object.prototype members', async () => {
    const all = protoProducts(0, 60);
    const fresh = new Catalog();
    await fresh.upsert(all);

    // Appends: the base, then new products in batches (some lacking the keys the base has).
    const appended = new Catalog();
    await appended.upsert(all.slice(0, 30));
    await appended.upsert(all.slice(30, 45));
    await appended.upsert(all.slice(45));
    expect(appended.state.index.fullText.tail).toBeDefined();
    expect(contents(appended.state)).toEqual(contents(fresh.state));
    expect(await answers(appended)).toEqual(await answers(fresh));

    // A merge: extra products deleted (tombstoned), then the live docs built again from the store.
    const merged = new Catalog();
    await merged.upsert([...all.slice(0, 40), ...protoProducts(100, 110), ...all.slice(40)]);
    await merged.delete(protoProducts(100, 110).map((p) => p.refId));
    expect(merged.state.tombstones).toBeDefined();
    await merged.merge();
    expect(merged.state.tombstones).toBeUndefined();
    expect(contents(merged.state)).toEqual(contents(fresh.state));
    expect(await answers(merged)).toEqual(await answers(fresh));
  });
});
