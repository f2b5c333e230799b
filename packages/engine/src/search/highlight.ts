/**
 * `highlight: true`: each result item carries `_highlight: {<field>: "text with <em>…</em>"}` for the
 * full-text fields where a query word matched. The text is HTML-escaped (a product title is data, not
 * markup) and each matched word is wrapped in `<em>…</em>`. Runs on the page only (at most `size`
 * products), on the calling thread.
 * @module
 */
import type { CatalogState } from '../catalog/catalog-index.js';
import { textValues } from '../catalog/field-values.js';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import type { Product } from '../types.js';
import type { SearchPlan } from './search-plan.js';

// A word as the original text spells it: letters, digits and the combining marks that fold away.
const ORIGINAL_WORD = /[\p{L}\p{N}\p{M}]+/gu;
const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `text` with `& < > " '` escaped for HTML. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** One word of a text as the text spells it: where it is, and the search words it folds into. */
export interface WordSpan {
  start: number;
  end: number;
  words: string[];
}

/** The words of `text` as it spells them (a run folding into no search word is left out). */
export function wordSpans(text: string): WordSpan[] {
  const spans: WordSpan[] = [];
  for (const m of text.matchAll(ORIGINAL_WORD)) {
    const words = tokenize(m[0]);
    if (words.length > 0) spans.push({ start: m.index, end: m.index + m[0].length, words });
  }
  return spans;
}

/** `text`, HTML-escaped, with the parts `[start, end)` of `marks` (ascending, not overlapping) wrapped in `<em>…</em>`. */
export function markText(text: string, marks: readonly { start: number; end: number }[]): string {
  let out = '';
  let last = 0;
  for (const { start, end } of marks) {
    out += `${escapeHtml(text.slice(last, start))}<em>${escapeHtml(text.slice(start, end))}</em>`;
    last = end;
  }
  return out + escapeHtml(text.slice(last));
}

/**
 * `text`, HTML-escaped, with every word whose folded form is in `terms` wrapped in `<em>…</em>`;
 * undefined when no word matched.
 */
export function highlightText(text: string, terms: ReadonlySet<string>): string | undefined {
  // One original run may fold into several words (compatibility forms): it matches when one does.
  const marks = wordSpans(text).filter((span) => span.words.some((w) => terms.has(w)));
  return marks.length > 0 ? markText(text, marks) : undefined;
}

/**
 * Copies of `products` with `_highlight` for the full-text fields where one of the plan's matched terms
 * appears (a multi-valued field shows its first matching value); `{}` when none did (e.g. `q` = "",
 * or a pinned product that does not match the text), so every item carries the key.
 */
export function highlightProducts(state: CatalogState, plan: SearchPlan, products: readonly Product[]): Product[] {
  const terms = new Set<string>();
  for (const word of plan.words) for (const t of word.termIds) terms.add(state.vocabulary[t]);
  const fields = state.index.fullText.fieldIds.map((fid) => state.index.fields[fid].name);
  return products.map((product) => {
    const highlight: Record<string, string> = {};
    for (const name of fields) {
      if (!Object.hasOwn(product, name)) continue;
      for (const value of textValues(product[name])) {
        const marked = highlightText(value, terms);
        if (marked !== undefined) {
          Object.defineProperty(highlight, name, { value: marked, enumerable: true, writable: true, configurable: true });
          break;
        }
      }
    }
    return { ...product, _highlight: highlight };
  });
}
