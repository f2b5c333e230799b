/**
 * The tokenizer shared by indexing and querying: one definition of a "word", so that what the index
 * stores and what a query looks up can never drift apart.
 * @module
 */

// Letters and digits of any script; everything else separates words.
const WORD = /[\p{L}\p{N}]+/gu;
// The same on lower-cased ASCII text (its only letters and digits are a-z and 0-9), without the cost
// of a unicode property match.
const ASCII_WORD = /[a-z0-9]+/g;
// Combining marks left after NFKD (accents): stripped so "café" and "cafe" are the same word.
const MARKS = /\p{M}+/gu;
// Symbols (™ ℠ ® © Ⓡ ㎏ ₨ …): separators, replaced before NFKD, which spells some of them with letters
// ("™" → "TM") that would join the word beside them ("Acme™" was the word "acmetm"), as ® and ©,
// which NFKD leaves alone, always separated.
const SYMBOLS = /\p{S}/gu;

/**
 * The version of the text analysis (what {@link tokenize} makes of a text): every stored vocabulary
 * and its postings depend on it, so a catalog snapshot records it and one written under another is
 * analysed again when loaded (durability/snapshot.ts). Raise it with any change of the words a text
 * gives. 1: up to 2026-11-29; 2: symbols separate words and give none (decision 0093).
 */
export const TEXT_ANALYSIS_VERSION = 2;

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * Whether `text` gives the same words under text analysis `version` as under the current one: what a
 * snapshot written under an older analysis is checked with, value by value, so that only a catalog
 * whose words did change is analysed again. An unknown version answers false.
 */
export function analysedAlike(text: string, version: number): boolean {
  if (version === TEXT_ANALYSIS_VERSION) return true;
  if (version !== 1) return false;
  // 1 spelled a symbol as NFKD does: different words only where that spelling has a letter or digit.
  if (!NON_ASCII.test(text)) return true;
  for (const [symbol] of text.matchAll(SYMBOLS)) if (LETTER_OR_DIGIT.test(symbol.normalize('NFKD'))) return false;
  return true;
}
// Pure ASCII needs neither normalisation nor mark stripping: the common case skips both (fast path).
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Folds text for matching: lower case, symbols as spaces, compatibility decomposition (NFKD), accents
 * removed. `"Ångström ＡＢＣ"` → `"angstrom abc"`, `"Acme™"` → `"acme "`.
 */
export function foldText(text: string): string {
  const lower = text.toLowerCase();
  if (!NON_ASCII.test(lower)) return lower;
  return lower.replace(SYMBOLS, ' ').normalize('NFKD').replace(MARKS, '').toLowerCase();
}

/**
 * Counts the words {@link tokenize} would find in `text`, stopping at `stopAt` (so a huge text costs
 * no more than that many matches). The raw text is counted, unfolded: a combining mark splits a word
 * here where folding would strip it, so the count may be a little higher — it only bounds a limit.
 */
export function countWords(text: string, stopAt: number): number {
  const word = new RegExp(WORD.source, WORD.flags);
  let count = 0;
  while (count < stopAt && word.exec(text) !== null) count++;
  return count;
}

/**
 * Splits text into search words: unicode-aware, case- and accent-insensitive (NFKD, marks removed),
 * runs of letters and digits of any script; punctuation and spaces separate words.
 * `tokenize("Women's Café-Shorts 2XL")` → `["women", "s", "cafe", "shorts", "2xl"]`.
 * Scripts written without spaces (CJK) give one word per run of characters.
 */
export function tokenize(text: string): string[] {
  const folded = foldText(text);
  return folded.match(NON_ASCII.test(folded) ? WORD : ASCII_WORD) ?? [];
}

/** What {@link forEachWord} hands each word to: the word as `text.slice(start, end)`, not sliced. */
export interface WordSink {
  word(text: string, start: number, end: number): void;
}

/** Whether UTF-16 unit `c` is an ASCII lower-case letter or digit (what `ASCII_WORD` matches). */
function isAsciiWordUnit(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
}

/**
 * The words of {@link tokenize}, in order, handed to `sink` as ranges of the folded text: on ASCII text
 * (the common case) no word is cut out as a string of its own. Why: a build tokenises every distinct
 * value of its full-text fields (a million titles), and the words' substrings and match arrays were the
 * largest garbage of a full replace (75 MB per 200,000 products, docs/benchmarks.md, "The full replace
 * at 1M: what it allocates"); a caller that numbers words (`TermNumbering.idOfRange`) only makes a
 * string of a word it has not seen. Other text goes through {@link tokenize}'s pattern.
 */
export function forEachWord(text: string, sink: WordSink): void {
  const folded = foldText(text);
  if (NON_ASCII.test(folded)) {
    for (const word of folded.match(WORD) ?? []) sink.word(word, 0, word.length);
    return;
  }
  let start = -1;
  for (let i = 0; i < folded.length; i++) {
    if (isAsciiWordUnit(folded.charCodeAt(i))) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      sink.word(folded, start, i);
      start = -1;
    }
  }
  if (start >= 0) sink.word(folded, start, folded.length);
}
