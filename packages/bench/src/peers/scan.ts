/**
 * The baseline: a plain linear scan over the products for every request (whole-word AND match on the
 * title), then scope, facets, ranges and sort by hand. Its totals are the reference the other
 * adapters are checked against.
 * @module
 */
import type { Product, SearchRequest, SearchOutcome } from '../types.js';
import { words } from '../workloads/sample.js';
import type { SearchAdapter } from './adapter.js';
import { Columns, countsIgnoringOwnCondition, finishRequest, scopePredicate } from './columns.js';

export class ScanAdapter implements SearchAdapter {
  readonly name = 'a plain linear scan';
  private titles: string[] = [];
  private columns = new Columns([]);

  build(products: Product[]): void {
    // ' w1 w2 … ' so that a whole-word test is one `includes`.
    this.titles = products.map((p) => ` ${words(p.title).join(' ')} `);
    this.columns = new Columns(products);
    this.columns.prepare(['brand', 'search_category'], ['price', 'ratings']);
    this.columns.prefixColumn('categories');
  }

  search(request: SearchRequest): SearchOutcome {
    const needles = words(request.q).map((w) => ` ${w} `);
    // Counts ignoring a condition need the text matches before the scope (finishRequest applies it).
    const prefilter = !countsIgnoringOwnCondition(request);
    const scope = prefilter ? scopePredicate(request, this.columns) : undefined;
    const matched: number[] = [];
    const titles = this.titles;
    for (let doc = 0; doc < titles.length; doc++) {
      let ok = true;
      for (const n of needles) if (!titles[doc]!.includes(n)) { ok = false; break; }
      if (ok && (!scope || scope(doc))) matched.push(doc);
    }
    return finishRequest(matched, request, this.columns, prefilter);
  }
}
