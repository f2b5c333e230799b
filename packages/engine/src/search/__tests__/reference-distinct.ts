/**
 * The plain reference of variants (`distinct`) over the plain search reference's matches: groups by the
 * first text value of the field (none or `""`: a group of its own), the group's first match in the
 * reference order represents it, totals count groups, and with `facetCounts: "groups"` a group counts
 * once per value any of its matches has. Written for clarity, not speed.
 */
import { numericValue, textValues } from '../../catalog/field-values.js';
import type { FacetBucket, Product } from '../../types.js';
import { fieldKind, type ReferenceResult } from './reference-search.js';
import type { DistinctSettings } from '../../contract/settings-schema.js';
import type { SearchRequest } from '../../types.js';

/** What a distinct search must answer, beside the page order (the representatives). */
export interface ReferenceDistinct {
  /** One product per group, in result order (ties of the sort keys: the reference's doc order). */
  representatives: Product[];
  total: number;
  /** Per product refId: its group's matches. */
  variants: Map<string, number>;
  /** The group of each product (its key, or a key of its own). */
  groupOf: (p: Product) => string;
  aggregations: ReferenceResult['aggregations'];
  rangeBuckets: ReferenceResult['rangeBuckets'];
}

export function referenceDistinct(products: readonly Product[], request: SearchRequest, plain: ReferenceResult, setting: DistinctSettings): ReferenceDistinct {
  const groupOf = (p: Product): string => {
    const first = textValues(p[setting.field])[0];
    return first === undefined || first === '' ? `\u0000own:${p.refId}` : `v:${first}`;
  };
  const members = new Map<string, Product[]>();
  for (const p of plain.matches) {
    const g = groupOf(p);
    members.set(g, [...(members.get(g) ?? []), p]);
  }
  const representatives = [...members.values()].map((list) => list[0]);
  const variants = new Map<string, number>();
  for (const list of members.values()) for (const p of list) variants.set(p.refId, list.length);
  let { aggregations, rangeBuckets } = plain;
  if (setting.facetCounts === 'groups') {
    aggregations = {};
    for (const name of request.aggregations ?? []) {
      const counts = new Map<string, number>();
      if (name !== 'image_vector') {
        for (const list of members.values()) {
          for (const v of new Set(list.flatMap((p) => textValues(p[name])))) counts.set(v, (counts.get(v) ?? 0) + 1);
        }
      }
      aggregations[name] = [...counts].map(([key, doc_count]): FacetBucket => ({ key, doc_count }))
        .sort((a, b) => b.doc_count - a.doc_count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    }
    rangeBuckets = {};
    for (const [name, bounds] of Object.entries(request.range_buckets ?? {})) {
      const numeric = fieldKind(products, name) === 'numeric';
      const counts = bounds.map(() => 0).concat(0);
      for (const list of numeric ? members.values() : []) {
        const hit = new Set<number>();
        for (const p of list) {
          const v = numericValue(p[name]);
          if (!Number.isNaN(v)) hit.add(bounds.filter((b) => b <= v).length);
        }
        for (const k of hit) counts[k]++;
      }
      rangeBuckets[name] = counts.map((count, k) => ({ ...(k > 0 ? { from: bounds[k - 1] } : {}), ...(k < bounds.length ? { to: bounds[k] } : {}), count }));
    }
  }
  return { representatives, total: members.size, variants, groupOf, aggregations, rangeBuckets };
}
