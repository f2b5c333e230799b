/**
 * Languages: the Snowball stemmer and the default stop words of each supported `language` setting
 * (from the `@orama/stemmers` and `@orama/stopwords` packages), and the stem index of a vocabulary.
 * @module
 */
import { stemmer as da } from '@orama/stemmers/danish';
import { stemmer as de } from '@orama/stemmers/german';
import { stemmer as en } from '@orama/stemmers/english';
import { stemmer as es } from '@orama/stemmers/spanish';
import { stemmer as fi } from '@orama/stemmers/finnish';
import { stemmer as fr } from '@orama/stemmers/french';
import { stemmer as it } from '@orama/stemmers/italian';
import { stemmer as nl } from '@orama/stemmers/dutch';
import { stemmer as no } from '@orama/stemmers/norwegian';
import { stemmer as pt } from '@orama/stemmers/portuguese';
import { stemmer as ru } from '@orama/stemmers/russian';
import { stemmer as sv } from '@orama/stemmers/swedish';
import { stopwords as daStop } from '@orama/stopwords/danish';
import { stopwords as deStop } from '@orama/stopwords/german';
import { stopwords as enStop } from '@orama/stopwords/english';
import { stopwords as esStop } from '@orama/stopwords/spanish';
import { stopwords as fiStop } from '@orama/stopwords/finnish';
import { stopwords as frStop } from '@orama/stopwords/french';
import { stopwords as itStop } from '@orama/stopwords/italian';
import { stopwords as nlStop } from '@orama/stopwords/dutch';
import { stopwords as noStop } from '@orama/stopwords/norwegian';
import { stopwords as ptStop } from '@orama/stopwords/portuguese';
import { stopwords as ruStop } from '@orama/stopwords/russian';
import { stopwords as svStop } from '@orama/stopwords/swedish';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import { runSteps, type Steps } from '../catalog/steps.js';

/** A supported language: its stemmer and its default stop words (folded like query words). */
export interface Language {
  code: string;
  stem: (word: string) => string;
  stopWords: ReadonlySet<string>;
}

/**
 * English words of the generic stop list that carry meaning in a shop query ("down jacket",
 * "over ear", "push up", "off white", "no show socks", "under armour"): kept as words.
 */
const SHOP_WORDS_EN = ['no', 'not', 'off', 'up', 'down', 'over', 'under', 'out', 'all', 'only', 'own', 'more', 'most',
  'few', 'other', 'same', 'very', 'before', 'after', 'above', 'below', 'between', 'against', 'again', 'once', 'through', 'top'];

function language(code: string, stem: (w: string) => string, stops: readonly string[], keep: readonly string[] = []): Language {
  // Stop words are compared with query words, so they go through the same tokenizer ("i'm" → "i", "m"
  // would drop a lone "m": only single-token entries are kept).
  const words = new Set<string>();
  for (const s of stops) {
    const t = tokenize(s);
    if (t.length === 1 && !keep.includes(t[0])) words.add(t[0]);
  }
  return { code, stem, stopWords: words };
}

/** The supported `language` codes (ISO 639-1) and their stemmers and stop words. */
export const LANGUAGES: ReadonlyMap<string, Language> = new Map([
  language('en', en, enStop, SHOP_WORDS_EN), language('da', da, daStop), language('de', de, deStop),
  language('es', es, esStop), language('fi', fi, fiStop), language('fr', fr, frStop), language('it', it, itStop),
  language('nl', nl, nlStop), language('no', no, noStop), language('pt', pt, ptStop), language('ru', ru, ruStop),
  language('sv', sv, svStop),
].map((l) => [l.code, l]));

/** The default `language` setting. */
export const DEFAULT_LANGUAGE = 'en';

/** Words shorter than this are not stemmed (and find no stem variants): "is", "us", "xs". */
export const MIN_STEM_WORD = 3;

// Letters only: model numbers, sizes and mixed tokens ("2xl", "s10") are not words to stem.
const STEMMABLE = /^\p{L}+$/u;

/** The stem of a folded word, or undefined when it is not stemmed (short, or not only letters). */
export function stemOf(lang: Language, word: string): string | undefined {
  return word.length >= MIN_STEM_WORD && STEMMABLE.test(word) ? lang.stem(word) : undefined;
}

/** Most query words whose stems {@link queryStemOf} keeps per language (then it starts over). */
const QUERY_STEMS_KEPT = 4_096;
const queryStems = new WeakMap<Language, Map<string, string | undefined>>();

/**
 * {@link stemOf} for the words of queries, kept: shoppers repeat their words, and a stemmer run costs
 * microseconds, a fair share of a rare word's whole search.
 */
export function queryStemOf(lang: Language, word: string): string | undefined {
  let stems = queryStems.get(lang);
  if (stems === undefined) queryStems.set(lang, (stems = new Map()));
  if (stems.has(word)) return stems.get(word);
  if (stems.size >= QUERY_STEMS_KEPT) stems.clear();
  const stem = stemOf(lang, word);
  stems.set(word, stem);
  return stem;
}

/**
 * A vocabulary's terms grouped by stem: stem → term ids (ascending). Derived per vocabulary array and
 * language, in the background for the language a website's settings name (search/term-aids-ahead.ts),
 * else on first use — a value patch keeps the vocabulary array, so it keeps the index; a rebuild or an
 * append makes a new vocabulary and the index is derived again (in the background after an append,
 * from the previous one's: only the new words are stemmed). A stemmer run per term: with the 35,000
 * terms of the 20k Flipkart catalog, the first worded query of each vocabulary took 26–80 ms, against
 * 1–5 ms with the index derived ahead (decision 0069).
 */
const stemIndexCache = new WeakMap<readonly string[], Map<string, StemIndex>>();

/** A vocabulary's terms by stem, and each term's stem: see {@link stemIndex}. */
export interface StemIndex {
  /** Stem → the ids of the terms of that stem, ascending. */
  byStem: Map<string, number[]>;
  /**
   * Per term id, its stem ({@link stemOf}; undefined: not stemmed): a query word of the vocabulary takes
   * its stem from here instead of a stemmer run (about half of compiling a never-asked word).
   */
  ofTerm: (string | undefined)[];
}

/** Terms stemmed between two yields of {@link stemIndexSteps} (a stemmer run costs about a microsecond or more). */
const STEMS_PER_STEP = 512;

/** The stem index of `vocabulary` for `lang` (see {@link stemIndexCache}). */
export function stemIndex(vocabulary: readonly string[], lang: Language): StemIndex {
  return keptStemIndex(vocabulary, lang) ?? runSteps(stemIndexSteps(vocabulary, lang));
}

/** The stem index of `vocabulary` for `lang` when it is derived already, else undefined (nothing is derived). */
export function keptStemIndex(vocabulary: readonly string[], lang: Language): StemIndex | undefined {
  return stemIndexCache.get(vocabulary)?.get(lang.code);
}

/**
 * {@link stemIndex} in steps: derived and kept unless kept already. With `previous`, an earlier sorted
 * vocabulary whose index for `lang` is kept (the one a version appended from: an append merges its new
 * words into it), the terms both hold take their stems from it, found by one merge walk of the two
 * sorted lists: only the new words are stemmed.
 */
export function* stemIndexSteps(vocabulary: readonly string[], lang: Language, previous?: readonly string[]): Steps<StemIndex> {
  let perLanguage = stemIndexCache.get(vocabulary);
  if (!perLanguage) stemIndexCache.set(vocabulary, (perLanguage = new Map()));
  const kept = perLanguage.get(lang.code);
  if (kept) return kept;
  const before = previous && keptStemIndex(previous, lang);
  const byStem = new Map<string, number[]>();
  const ofTerm = new Array<string | undefined>(vocabulary.length);
  let p = 0;
  for (let t = 0; t < vocabulary.length; t++) {
    if (t % STEMS_PER_STEP === STEMS_PER_STEP - 1) yield;
    const word = vocabulary[t];
    let s: string | undefined;
    if (before !== undefined) {
      while (p < previous!.length && previous![p] < word) p++;
      s = p < previous!.length && previous![p] === word ? before.ofTerm[p] : stemOf(lang, word);
    } else s = stemOf(lang, word);
    ofTerm[t] = s;
    if (s === undefined) continue;
    const list = byStem.get(s);
    if (list) list.push(t);
    else byStem.set(s, [t]);
  }
  // Another derivation of the same index may have finished meanwhile (a search's): the first one stays.
  const first = perLanguage.get(lang.code);
  if (first) return first;
  const index = { byStem, ofTerm };
  perLanguage.set(lang.code, index);
  return index;
}
