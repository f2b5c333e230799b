/**
 * Merchandising rules in a search (settings `rules`, see docs/operations.md): which rules apply to a
 * request, compiled against one catalog version into plain data ({@link PlanMerch}, carried by the
 * plan to every worker), and the pieces each stage runs:
 * - per doc range (run-partial.ts): hidden docs leave the candidates before anything is counted;
 *   boosts multiply the relevance of the docs their scope selects; which pinned docs matched;
 * - on the calling thread (assemble-payload.ts): the pinned docs that did not match the text but pass
 *   the request's filters join the totals and facets, and every pinned doc is placed at its position.
 * Pure functions over the catalog index; nothing here knows about text matching or scoring internals.
 * @module
 */
import type { CatalogIndex, CatalogState } from '../catalog/catalog-index.js';
import { fullBitset } from '../catalog/columns/bitset.js';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import type { MerchandisingRule } from '../config.js';
import { isAisleError } from '../errors.js';
import type { SearchRequest } from '../types.js';
import type { PartialResult } from './run-partial.js';
import { nearMissAggregations } from './disjunctive-facets.js';
import type { PlanCondition, SearchPlan } from './search-plan.js';
import { numericAt } from '../catalog/columns/numeric-column.js';

/** One boost or bury, resolved: docs passing every condition get their relevance multiplied by `weight`. */
export interface PlanBoost {
  conditions: PlanCondition[];
  weight: number;
}

/** The merchandising part of a plan (plain data). */
export interface PlanMerch {
  /** Doc ids removed from the results, totals and facets (ascending). */
  hidden: number[];
  boosts: PlanBoost[];
  /** Pinned docs with their 0-based positions, in rule order (a hidden doc is never pinned). */
  pins: { doc: number; position: number }[];
  /** Ids of the rules that applied (for tests and debugging). */
  ruleIds: string[];
}

/** A rule with its query words and time window parsed once. */
interface ParsedRule {
  rule: MerchandisingRule;
  words: string[];
  fromMs: number;
  untilMs: number;
}

function parseRule(rule: MerchandisingRule): ParsedRule {
  return {
    rule, words: tokenize(rule.query),
    fromMs: rule.from === undefined ? -Infinity : Date.parse(rule.from),
    untilMs: rule.until === undefined ? Infinity : Date.parse(rule.until),
  };
}

// Parsed per settings value: a settings update replaces the array, so the entry goes with the old one.
const parsedRules = new WeakMap<readonly MerchandisingRule[], ParsedRule[]>();

function parsedRulesOf(rules: readonly MerchandisingRule[]): ParsedRule[] {
  let parsed = parsedRules.get(rules);
  if (!parsed) parsedRules.set(rules, (parsed = rules.map(parseRule)));
  return parsed;
}

/** Whether a rule's query and time window select the request: `words` is the normalised query. */
export function ruleApplies(rule: MerchandisingRule, words: readonly string[], now: number): boolean {
  return parsedRuleApplies(parseRule(rule), words, now);
}

function parsedRuleApplies({ rule, words: wanted, fromMs, untilMs }: ParsedRule, words: readonly string[], now: number): boolean {
  if (now < fromMs || now >= untilMs) return false;
  if ((rule.match ?? 'exact') === 'exact') return wanted.length === words.length && wanted.every((w, i) => w === words[i]);
  // contains: the rule's words as consecutive whole words of the query ("" → every query).
  for (let at = 0; at + wanted.length <= words.length; at++) {
    let k = 0;
    while (k < wanted.length && words[at + k] === wanted[k]) k++;
    if (k === wanted.length) return true;
  }
  return false;
}

/**
 * Compiles the rules that apply to `request` at `now` against a catalog version; undefined when none
 * changes anything. `compileScope` resolves a boost's scope as the request's scope is resolved (a
 * boost whose scope does not fit the catalog, e.g. `{min, max}` on a text field, selects nothing: a
 * merchant's rule never makes shoppers' searches fail).
 */
export function compileMerchandising(
  state: CatalogState, request: SearchRequest, rules: readonly MerchandisingRule[] | undefined, now: number,
  compileScope: (scope: NonNullable<SearchRequest['scope']>) => { conditions: PlanCondition[]; nothing: boolean },
): PlanMerch | undefined {
  if (!rules || rules.length === 0) return undefined;
  const words = tokenize(request.q);
  const applicable = parsedRulesOf(rules).filter((r) => parsedRuleApplies(r, words, now)).map((r) => r.rule);
  if (applicable.length === 0) return undefined;
  const hidden = new Set<number>();
  for (const rule of applicable) for (const refId of rule.hide ?? []) {
    const doc = state.docByRefId.get(refId);
    if (doc !== undefined) hidden.add(doc);
  }
  const boosts: PlanBoost[] = [];
  for (const rule of applicable) for (const boost of rule.boost ?? []) {
    if (boost.weight === 1) continue;
    try {
      const { conditions, nothing } = compileScope(boost.scope);
      if (!nothing) boosts.push({ conditions, weight: boost.weight });
    } catch (err) {
      if (!isAisleError(err) || err.code !== 'SEARCH_BAD_REQUEST') throw err;
    }
  }
  const pins: PlanMerch['pins'] = [];
  const pinned = new Set<number>();
  for (const rule of applicable) for (const pin of rule.pin ?? []) {
    const doc = state.docByRefId.get(pin.refId);
    if (doc === undefined || hidden.has(doc) || pinned.has(doc)) continue;
    pinned.add(doc);
    pins.push({ doc, position: pin.position - 1 });
  }
  if (hidden.size === 0 && boosts.length === 0 && pins.length === 0) return undefined;
  return { hidden: [...hidden].sort((a, b) => a - b), boosts, pins, ruleIds: applicable.map((r) => r.id) };
}

/** Whether doc `d` passes one resolved scope condition (the per-doc form of the filters). */
export function docPasses(index: CatalogIndex, cond: PlanCondition, d: number): boolean {
  const field = index.fields[cond.field];
  if (cond.kind === 'range') {
    const v = numericAt(field, d);
    if (v !== v) return !cond.requireValue;
    return v >= cond.min && v <= cond.max && !cond.not.includes(v);
  }
  const { offsets, codes, single } = field.text!;
  let listed = false;
  if (single) listed = single[d] >= 0 && cond.codes.includes(single[d]);
  else for (let j = offsets[d], end = offsets[d + 1]; j < end && !listed; j++) listed = cond.codes.includes(codes[j]);
  return listed === (cond.kind === 'in');
}

/** Whether doc `d` passes every condition. */
export function docPassesAll(index: CatalogIndex, conditions: readonly PlanCondition[], d: number): boolean {
  for (const cond of conditions) if (!docPasses(index, cond, d)) return false;
  return true;
}

// ---- Per doc range ---------------------------------------------------------------------------

/** Clears the hidden docs of [lo, hi) from a candidate bitset over that range. */
export function hideFromBitset(merch: PlanMerch, lo: number, hi: number, candidates: Uint32Array): void {
  for (const d of merch.hidden) {
    if (d < lo || d >= hi) continue;
    const local = d - lo;
    candidates[local >>> 5] &= ~(1 << (local & 31));
  }
}

/** Removes the hidden docs from a doc-sorted match list (in place, order kept); returns the new length. */
export function hideFromMatches(merch: PlanMerch, docs: Int32Array, scores: Float64Array, length: number): number {
  const hidden = merch.hidden;
  if (hidden.length === 0) return length;
  let h = 0;
  let k = 0;
  for (let i = 0; i < length; i++) {
    const d = docs[i];
    while (h < hidden.length && hidden[h] < d) h++;
    if (h < hidden.length && hidden[h] === d) continue;
    docs[k] = d;
    scores[k++] = scores[i];
  }
  return k;
}

/** Multiplies the scores of matched docs by the weights of the boosts whose scope they pass. */
export function boostMatches(index: CatalogIndex, merch: PlanMerch, docs: Int32Array, scores: Float64Array, length: number): void {
  for (const boost of merch.boosts) {
    for (let i = 0; i < length; i++) if (docPassesAll(index, boost.conditions, docs[i])) scores[i] *= boost.weight;
  }
}

/**
 * Relevance of each doc of [lo, hi) when browsing with boosts (every doc starts at 1): the boosts'
 * scopes are resolved as bitsets over the range by `applyCondition` (the filters' own bitset step).
 */
export function boostScoresOfRange(
  merch: PlanMerch, lo: number, hi: number,
  applyCondition: (cond: PlanCondition, candidates: Uint32Array) => void,
): Float64Array {
  const scores = new Float64Array(hi - lo).fill(1);
  for (const boost of merch.boosts) {
    const selected = fullBitset(hi - lo);
    for (const cond of boost.conditions) applyCondition(cond, selected);
    for (let wi = 0; wi < selected.length; wi++) {
      let word = selected[wi];
      while (word !== 0) {
        const low = word & -word;
        scores[(wi << 5) + 31 - Math.clz32(low)] *= boost.weight;
        word ^= low;
      }
    }
  }
  return scores;
}

/** Indexes (into `merch.pins`) of the pinned docs of [lo, hi) that are among the range's matches. */
export function pinsMatched(merch: PlanMerch, lo: number, hi: number, isMatch: (d: number) => boolean): number[] {
  const matched: number[] = [];
  merch.pins.forEach((pin, i) => { if (pin.doc >= lo && pin.doc < hi && isMatch(pin.doc)) matched.push(i); });
  return matched;
}

// ---- On the calling thread --------------------------------------------------------------------

/**
 * The ranked list with the pinned docs placed: each pin takes its position (the first listed wins a
 * position; the next goes to the next free one), the ranked docs (pinned ones removed) fill the rest
 * in order, and pins beyond the end come last in position order. `pinDocs` are the pins that are part
 * of the results. Returns at most `limit` docs.
 */
export function placePins(ranked: Int32Array, pinDocs: readonly { doc: number; position: number }[], limit: number): Int32Array {
  if (pinDocs.length === 0) return ranked.length > limit ? ranked.subarray(0, limit) : ranked;
  const slots = new Map<number, number>();
  for (const pin of pinDocs) {
    let p = pin.position;
    while (slots.has(p)) p++;
    slots.set(p, pin.doc);
  }
  const pinnedSet = new Set(pinDocs.map((p) => p.doc));
  const rest = ranked.filter((d) => !pinnedSet.has(d));
  const out: number[] = [];
  let r = 0;
  for (let i = 0; out.length < limit && (r < rest.length || slots.size > 0); i++) {
    const pinnedDoc = slots.get(i);
    if (pinnedDoc !== undefined) {
      out.push(pinnedDoc);
      slots.delete(i);
    } else if (r < rest.length) out.push(rest[r++]);
    else {
      // The ranked list ran out: the remaining pins follow in position order.
      for (const p of [...slots.keys()].sort((a, b) => a - b)) if (out.length < limit) out.push(slots.get(p)!);
      break;
    }
  }
  return Int32Array.from(out);
}

/**
 * The pinned docs that are part of the results: `placed` (in rule order, with positions) are those
 * among the matches of some range plus `extra`, those that did not match (the query text) but pass
 * every filter of the request.
 */
export function pinsInResults(
  index: CatalogIndex, plan: SearchPlan, partials: readonly PartialResult[],
): { placed: PlanMerch['pins']; extra: number[]; nearMiss: { doc: number; aggregations: number[] }[] } {
  const merch = plan.merch!;
  const matched = new Set<number>();
  const seen = new Set<number>();
  for (const p of partials) {
    for (const i of p.pinsMatched ?? []) matched.add(i);
    for (const i of p.pinsSeen ?? []) seen.add(i);
  }
  const placed: PlanMerch['pins'] = [];
  const extra: number[] = [];
  const nearMiss: { doc: number; aggregations: number[] }[] = [];
  merch.pins.forEach((pin, i) => {
    if (matched.has(i)) placed.push(pin);
    else if (docPassesAll(index, plan.conditions, pin.doc)) {
      placed.push(pin);
      extra.push(pin.doc);
    } else if (!seen.has(i)) {
      // Not a result: still a near miss of one disjunctive facet, unless its range counted it already.
      const aggregations = nearMissAggregations(index, plan, pin.doc);
      if (aggregations.length > 0) nearMiss.push({ doc: pin.doc, aggregations });
    }
  });
  return { placed, extra, nearMiss };
}

/** Adds one doc's values of text field `fid` to its facet counts. */
export function addDocToFacetCounts(index: CatalogIndex, fid: number, doc: number, counts: Uint32Array): void {
  const { offsets, codes, single } = index.fields[fid].text!;
  if (single) {
    if (single[doc] >= 0) counts[single[doc]]++;
  } else for (let j = offsets[doc], end = offsets[doc + 1]; j < end; j++) counts[codes[j]]++;
}

/** `[min, max]` widened by one doc's value of numeric field `fid` (-1: no field; missing values skipped). */
export function addDocToRange(index: CatalogIndex, fid: number, doc: number, min: number, max: number): [number, number] {
  if (fid < 0) return [min, max];
  const v = numericAt(index.fields[fid], doc);
  return [v < min ? v : min, v > max ? v : max];
}
