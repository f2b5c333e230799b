/**
 * Known-item queries from real product titles, and their typo'd variants. Pure and seeded: the same
 * catalog and seed give the same queries on every machine.
 * @module
 */

export { seededRandom } from '../seeded-random.js';
import { seededRandom } from '../seeded-random.js';

/** The variants of a known-item query, in report order. */
export const VARIANTS = ['clean', 'substitution', 'deletion', 'insertion', 'transposition', 'two typos', 'prefix'] as const;
export type Variant = (typeof VARIANTS)[number];

/** One known-item query: the product it was made from and its query text per variant (absent: not applicable). */
export interface KnownItem {
  refId: string;
  title: string;
  queries: Partial<Record<Variant, string>>;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
/** Words a typo is made in: 4+ letters (the length from which one typo is expected to be forgiven). */
const MIN_TYPO_WORD = 4;

/**
 * Lower-cased words of a title (letters and digits), as a shopper would type them: a symbol is no part
 * of a word (nobody types "Insignia™" as "insigniatm", which NFKD makes of it).
 */
export function titleWords(title: string): string[] {
  return title.toLowerCase().replace(/\p{S}/gu, ' ').normalize('NFKD').replace(/\p{M}+/gu, '').match(/[\p{L}\p{N}]+/gu) ?? [];
}

type Edit = 'substitution' | 'deletion' | 'insertion' | 'transposition';

/**
 * One edit of `word` at a random position other than the first letter (shoppers rarely mistype the
 * first letter; every engine is given the same queries). Undefined when the edit cannot change it.
 */
export function editWord(word: string, edit: Edit, random: () => number): string | undefined {
  const pick = (from: number, to: number) => from + Math.floor(random() * (to - from));
  const letter = (not?: string) => {
    for (;;) {
      const c = LETTERS[Math.floor(random() * LETTERS.length)];
      if (c !== not) return c;
    }
  };
  switch (edit) {
    case 'substitution': { const i = pick(1, word.length); return word.slice(0, i) + letter(word[i]) + word.slice(i + 1); }
    case 'deletion': { const i = pick(1, word.length); return word.slice(0, i) + word.slice(i + 1); }
    case 'insertion': { const i = pick(1, word.length + 1); return word.slice(0, i) + letter() + word.slice(i); }
    case 'transposition': {
      const spots = [];
      for (let i = 1; i + 1 < word.length; i++) if (word[i] !== word[i + 1]) spots.push(i);
      if (spots.length === 0) return undefined;
      const i = spots[Math.floor(random() * spots.length)];
      return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
    }
  }
}

const EDITS: Edit[] = ['substitution', 'deletion', 'insertion', 'transposition'];

/**
 * Samples `count` products (with a title of at least 2 words) and makes their queries: 2 or 3 words of
 * the title, in title order (at least one of 4+ letters); each typo variant edits one 4+-letter word;
 * "two typos" edits two words (or one word of 8+ letters twice); "prefix" cuts the last word to its
 * first 3 letters (it must have 5+).
 */
export function sampleKnownItems(products: readonly { refId: string; title?: unknown }[], count: number, seed: number): KnownItem[] {
  const random = seededRandom(seed);
  const candidates = products.filter((p) => typeof p.title === 'string' && titleWords(p.title).length >= 2);
  const items: KnownItem[] = [];
  const used = new Set<number>();
  while (items.length < count && used.size < candidates.length) {
    const at = Math.floor(random() * candidates.length);
    if (used.has(at)) continue;
    used.add(at);
    const p = candidates[at];
    const all = titleWords(p.title as string);
    const n = Math.min(all.length, 2 + Math.floor(random() * 2));
    const start = Math.floor(random() * (all.length - n + 1));
    const words = all.slice(start, start + n);
    const long = words.map((w, i) => (w.length >= MIN_TYPO_WORD && /^\p{L}+$/u.test(w) ? i : -1)).filter((i) => i >= 0);
    if (long.length === 0) continue;
    const queries: Partial<Record<Variant, string>> = { clean: words.join(' ') };
    const withWord = (i: number, w: string) => words.map((x, j) => (j === i ? w : x)).join(' ');
    for (const edit of EDITS) {
      const i = long[Math.floor(random() * long.length)];
      const typo = editWord(words[i], edit, random);
      if (typo !== undefined) queries[edit] = withWord(i, typo);
    }
    const eight = long.filter((i) => words[i].length >= 8);
    if (long.length >= 2) {
      const [a, b] = [long[0], long[long.length - 1]];
      const ea = editWord(words[a], EDITS[Math.floor(random() * 3)], random)!;
      const eb = editWord(words[b], EDITS[Math.floor(random() * 3)], random)!;
      queries['two typos'] = words.map((x, j) => (j === a ? ea : j === b ? eb : x)).join(' ');
    } else if (eight.length > 0) {
      const i = eight[0];
      const once = editWord(words[i], EDITS[Math.floor(random() * 3)], random)!;
      queries['two typos'] = withWord(i, editWord(once, EDITS[Math.floor(random() * 3)], random)!);
    }
    const last = words[words.length - 1];
    if (last.length >= 5) queries.prefix = [...words.slice(0, -1), last.slice(0, 3)].join(' ');
    items.push({ refId: p.refId, title: p.title as string, queries });
  }
  return items;
}

/** Products with the same title words as the known item count as finding it (catalogs repeat titles). */
export function relevantSet(products: readonly { refId: string; title?: unknown }[]): (item: KnownItem) => Set<string> {
  const byTitle = new Map<string, string[]>();
  for (const p of products) {
    if (typeof p.title !== 'string') continue;
    const key = titleWords(p.title).join(' ');
    const list = byTitle.get(key) ?? [];
    list.push(p.refId);
    byTitle.set(key, list);
  }
  return (item) => new Set(byTitle.get(titleWords(item.title).join(' ')) ?? [item.refId]);
}
