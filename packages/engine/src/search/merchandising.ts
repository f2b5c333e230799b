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
import type { CatalogIndex, CatalogState, TextColumn } from '../catalog/catalog-index.js';
import { fullBitset } from '../catalog/columns/bitset.js';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import type { MerchandisingRule } from '../config.js';
import { fieldError } from '../errors.js';
import type { SearchRequest } from '../types.js';
import { nearMissAggregations } from './disjunctive-facets.js';
import type { PartialResult, SearchPlan } from './search-plan.js';
import { numericAt } from '../catalog/columns/numeric-column.js';
import { compileScope, docPasses, docPassesAll, narrowBitset, parseScope, type Hierarchies, type ParsedScope, type PlanCondition } from './conditions.js';

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

/** A boost with its scope parsed once; `reported` once its scope failed to compile (see {@link compileMerchandising}). */
interface ParsedBoost {
  scope: ParsedScope;
  weight: number;
  reported: boolean;
}

/** A rule with its query words, time window and boost scopes parsed once. */
interface ParsedRule {
  rule: MerchandisingRule;
  words: string[];
  fromMs: number;
  untilMs: number;
  boosts: ParsedBoost[];
}

function parseRule(rule: MerchandisingRule): ParsedRule {
  return {
    rule, words: tokenize(rule.query),
    fromMs: rule.from === undefined ? -Infinity : Date.parse(rule.from),
    untilMs: rule.until === undefined ? Infinity : Date.parse(rule.until),
    boosts: (rule.boost ?? []).map((b) => ({ scope: parseScope(b.scope), weight: b.weight, reported: false })),
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

/** The merchandising part of a plan and the rule boosts that could not be applied. */
export interface CompiledMerchandising {
  merch?: PlanMerch;
  /**
   * Boosts whose scope does not fit this catalog version (e.g. `{min, max}` on a field that became a
   * text field since the rule was saved), each listed once per settings version: skipped for this
   * search (a merchant's rule never makes shoppers' searches fail), and for the caller to report.
   */
  problems: Error[];
}

/**
 * Compiles the rules that apply to `request` at `now` against a catalog version; `merch` undefined
 * when none changes anything. A boost's scope is resolved as the request's scope is (conditions.ts).
 */
export function compileMerchandising(
  state: CatalogState, request: SearchRequest, rules: readonly MerchandisingRule[] | undefined, now: number, hierarchies?: Hierarchies,
): CompiledMerchandising {
  const problems: Error[] = [];
  if (!rules || rules.length === 0) return { problems };
  const words = tokenize(request.q);
  const applicable = parsedRulesOf(rules).filter((r) => parsedRuleApplies(r, words, now));
  if (applicable.length === 0) return { problems };
  const hidden = new Set<number>();
  for (const { rule } of applicable) for (const refId of rule.hide ?? []) {
    const doc = state.docByRefId.get(refId);
    if (doc !== undefined) hidden.add(doc);
  }
  const boosts: PlanBoost[] = [];
  for (const { rule, boosts: ruleBoosts } of applicable) ruleBoosts.forEach((boost, j) => {
    if (boost.weight === 1) return;
    const compiled = compileScope(state, boost.scope, undefined, hierarchies);
    if ('mismatch' in compiled) {
      if (!boost.reported) {
        boost.reported = true;
        const { field, problem } = compiled.mismatch;
        problems.push(new Error(`merchandising rule "${rule.id}": boost[${j}].scope.${field} ${problem}; the boost is not applied`));
      }
    } else if (!compiled.nothing) boosts.push({ conditions: compiled.conditions, weight: boost.weight });
  });
  const pins: PlanMerch['pins'] = [];
  const pinned = new Set<number>();
  for (const { rule } of applicable) for (const pin of rule.pin ?? []) {
    const doc = state.docByRefId.get(pin.refId);
    if (doc === undefined || hidden.has(doc) || pinned.has(doc)) continue;
    pinned.add(doc);
    pins.push({ doc, position: pin.position - 1 });
  }
  if (hidden.size === 0 && boosts.length === 0 && pins.length === 0) return { problems };
  return { merch: { hidden: [...hidden].sort((a, b) => a - b), boosts, pins, ruleIds: applicable.map((r) => r.rule.id) }, problems };
}

/**
 * Refuses rules whose boost scope cannot compile against the website's current catalog (a numeric
 * range on a text field, a list of values on a numeric field): throws `SETTINGS_INVALID` naming the
 * first such condition (`settings.rules[i].boost[j].scope.<field>`). A rule that fits today but not
 * after a later catalog change is reported at search time instead (see {@link compileMerchandising}).
 */
export function checkRulesApply(state: CatalogState, rules: readonly MerchandisingRule[] | undefined, key = 'settings.rules', hierarchies?: Hierarchies): void {
  (rules ?? []).forEach((rule, i) => (rule.boost ?? []).forEach((boost, j) => {
    const compiled = compileScope(state, parseScope(boost.scope), undefined, hierarchies);
    if ('mismatch' in compiled) throw fieldError('SETTINGS_INVALID', `${key}[${i}].boost[${j}].scope.${compiled.mismatch.field}`, compiled.mismatch.problem);
  }));
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
 * scopes are resolved as bitsets over the range (the filters' own bitset step).
 */
export function boostScoresOfRange(index: CatalogIndex, merch: PlanMerch, lo: number, hi: number): Float64Array {
  const scores = new Float64Array(hi - lo).fill(1);
  for (const boost of merch.boosts) {
    const selected = fullBitset(hi - lo);
    for (const cond of boost.conditions) narrowBitset(index, cond, lo, hi, selected);
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
    else if (docPassesAll(index, plan.conditions, pin.doc) && (plan.disjunctive ?? []).every((h) => docPasses(index, h.condition, pin.doc))) {
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
  addDocToColumnCounts(index.fields[fid].text!, doc, counts);
}

/** Adds one doc's codes of a text column (a field's, or a hierarchy's node column) to the counts per code. */
export function addDocToColumnCounts(column: TextColumn, doc: number, counts: Uint32Array): void {
  const { offsets, codes, single } = column;
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
