/**
 * The last resort for a query word that matches no catalog term at all — no exact, stem, synonym or
 * typo match — before it is dropped from the query: it may be unfinished ("frank" for "franklin" in the
 * middle of a query: only the last word is otherwise completed), or two words typed together
 * ("twinxl" for "twin xl", "5x7" for "5x 7", "e12" for "e 12": shoppers and catalogs write sizes,
 * dimensions and model codes with and without the space). A word with any match of its own never gets
 * here, so these widen nothing a shopper typed correctly. Pure.
 * @module
 */

/**
 * Words at least this long, not the last one, are completed when they match nothing: a shorter
 * beginning completes to too many unrelated words to stand for what was meant.
 */
export const MIN_COMPLETED_WORD = 4;

/**
 * Each part of a split between two letters (or two digits) has at least this many characters: one
 * letter alone is rarely a word of its own. A split where letters meet digits ("e|12", "5x|7") may leave
 * a single character: that boundary is where codes and sizes are written apart.
 */
export const MIN_SPLIT_PART = 2;

const DIGIT = /\p{N}/u;

/**
 * The ways to cut `word` into two parts that are both words of the catalog (`isTerm`), in order of
 * the cut position: between letters or digits when both parts have {@link MIN_SPLIT_PART} characters,
 * and at every boundary between a letter and a digit.
 */
export function wordSplits(word: string, isTerm: (part: string) => boolean): [string, string][] {
  const chars = [...word];
  const splits: [string, string][] = [];
  for (let p = 1; p < chars.length; p++) {
    const letterDigit = DIGIT.test(chars[p - 1]) !== DIGIT.test(chars[p]);
    if (!letterDigit && (p < MIN_SPLIT_PART || chars.length - p < MIN_SPLIT_PART)) continue;
    const left = chars.slice(0, p).join('');
    const right = chars.slice(p).join('');
    if (isTerm(left) && isTerm(right)) splits.push([left, right]);
  }
  return splits;
}
