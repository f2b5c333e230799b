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

/**
 * `text`, HTML-escaped, with every word whose folded form is in `terms` wrapped in `<em>…</em>`;
 * undefined when no word matched.
 */
export function highlightText(text: string, terms: ReadonlySet<string>): string | undefined {
  let out = '';
  let last = 0;
  let any = false;
  for (const m of text.matchAll(ORIGINAL_WORD)) {
    // One original run may fold into several words (compatibility forms): it matches when one does.
    if (!tokenize(m[0]).some((w) => terms.has(w))) continue;
    any = true;
    out += `${escapeHtml(text.slice(last, m.index))}<em>${escapeHtml(m[0])}</em>`;
    last = m.index + m[0].length;
  }
  return any ? out + escapeHtml(text.slice(last)) : undefined;
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
