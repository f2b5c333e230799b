/**
 * What keeps a logged query out of the completions (pure): personal data in the text as typed (an
 * e-mail address, a URL, a phone number, a run of six or more digits: what a shopper pastes by mistake
 * and others must never see), and the website's `suggestions.exclude` words and phrases.
 * @module
 */
import { tokenize } from '../catalog/full-text/tokenizer.js';

const EMAIL = /[^\s@]+@[^\s@]+\.[^\s@]+/;
const URL_LIKE = /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.)\S+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|info|biz|io|co|uk|de|fr|es|it|nl|eu|ru|dk|se|no|fi|pl|be|at|ch|us|ca|au|shop|store|app|dev|me|tv|ly|gl)(?:[/:?#]\S*)?\b/i;
/**
 * Seven or more digits with the separators phone numbers are written with (`+45 12 34 56 78`, `(555) 123-4567`).
 * Digits of any script (`\p{Nd}`: Arabic-Indic, Devanagari…): `\d` is ASCII only.
 */
const PHONE = /\+?\p{Nd}[\p{Nd}\s().-]{5,}\p{Nd}/u;
const DIGIT_RUN = /\p{Nd}{6,}/u;

/**
 * True when the typed text holds an e-mail address, a URL, a phone number or a run of 6+ digits. The text
 * is read in its compatibility form (NFKC) first: full-width `１２３４５６７` or `ａ＠ｂ．ｃｏ` is the same
 * number or address to a reader, and the query's normalisation folds it to ASCII, so a completion would
 * show it back in plain digits.
 */
export function hasPersonalData(typed: string): boolean {
  const text = typed.normalize('NFKC');
  if (EMAIL.test(text) || URL_LIKE.test(text) || DIGIT_RUN.test(text)) return true;
  const phone = PHONE.exec(text);
  return phone !== null && phone[0].replace(/\P{Nd}/gu, '').length >= 7;
}

/** Compiled exclude lists by the settings' array (a new settings value brings a new array). */
const compiled = new WeakMap<readonly string[], string[][]>();

/** The exclude list as word sequences (normalised as queries are), compiled once per settings value. */
export function excludedPhrases(exclude: readonly string[]): string[][] {
  let phrases = compiled.get(exclude);
  if (phrases === undefined) compiled.set(exclude, (phrases = exclude.map((e) => tokenize(e)).filter((words) => words.length > 0)));
  return phrases;
}

/** True when the normalised query holds one of the phrases as consecutive whole words (case-insensitive, as both are normalised). */
export function isExcluded(query: string, phrases: readonly string[][]): boolean {
  if (phrases.length === 0) return false;
  const words = query.split(' ');
  return phrases.some((phrase) => {
    for (let i = 0; i + phrase.length <= words.length; i++) if (phrase.every((w, j) => words[i + j] === w)) return true;
    return false;
  });
}
