/**
 * What a search selects besides its words, compiled against one catalog version in one pass: the
 * request's scope (each condition parsed and compiled once, conditions.ts), the conditions held back
 * for disjunctive facets, and the merchandising rules that apply. The search plan is assembled from
 * this and the compiled words (search-plan.ts) and is not edited afterwards.
 * @module
 */
import type { FieldTypes } from '../catalog/field-types.js';
import type { CatalogState } from '../catalog/catalog-index.js';
import type { MerchandisingRule } from '../config.js';
import { fieldError } from '../errors.js';
import type { ScopeConditions, SearchRequest } from '../types.js';
import { compileCondition, conditionCost, parseScope, type PlanCondition } from './conditions.js';
import type { PlanDisjunctive } from './conditions.js';
import { compileMerchandising, type PlanMerch } from './merchandising.js';

/** The merchandising rules in force and the time their windows are compared with. */
export interface RulesInForce {
  rules?: readonly MerchandisingRule[];
  /** ms since the epoch. */
  now: number;
}

/** The filtering part of a plan. */
export interface PlanFilters {
  /** Conditions every result passes and every aggregation counts under, cheapest first. */
  conditions: PlanCondition[];
  /** Conditions held back for disjunctive facets (see disjunctive-facets.ts). */
  disjunctive: PlanDisjunctive[];
  /** Some condition of `conditions` matches nothing on this catalog version. */
  matchNothing: boolean;
  merch?: PlanMerch;
  /** Rule boosts that could not be applied on this catalog version, each listed once per settings version (see merchandising.ts). */
  ruleProblems: Error[];
}

/**
 * Compiles the scope (and a search key's `forced` scope), disjunctive holds and merchandising of `request` (whose aggregations already
 * list its disjunctive facets, see `withDisjunctiveAggregations`). Throws `SEARCH_BAD_REQUEST` naming
 * the first scope condition that does not fit its field's kind (`fieldTypes`: the pinned types).
 */
export function compileFilters(state: CatalogState, request: SearchRequest, rules: RulesInForce, fieldTypes?: FieldTypes, forced?: ScopeConditions): PlanFilters {
  const disjunctiveFields = new Set(request.disjunctive_facets ?? []);
  const conditions: PlanCondition[] = [];
  const disjunctive: PlanDisjunctive[] = [];
  let matchNothing = false;
  // Some condition, held back or not, matches nothing: no pinned product passes the request's filters.
  let someNothing = false;
  for (const { field, condition } of parseScope(request.scope)) {
    const compiled = compileCondition(state, field, condition, fieldTypes);
    if (compiled.is === 'mismatch') throw fieldError('SEARCH_BAD_REQUEST', `scope.${field}`, compiled.problem);
    if (compiled.is === 'all') continue;
    const fid = state.fieldByName.get(field);
    if (compiled.is === 'nothing') someNothing = true;
    // A disjunctive field's condition matching nothing (only unknown values) must not empty the whole
    // search when the field has values to count: it is held back as a list with no value.
    const held = compiled.is === 'condition'
      ? compiled.condition
      : fid !== undefined && state.index.fields[fid].text !== undefined ? { kind: 'in' as const, field: fid, codes: [] } : undefined;
    if (disjunctiveFields.has(field) && held) {
      const aggregations: number[] = [];
      (request.aggregations ?? []).forEach((name, i) => { if (name === field) aggregations.push(i); });
      disjunctive.push({ condition: held, aggregations });
    } else if (compiled.is === 'condition') conditions.push(compiled.condition);
    else matchNothing = true;
  }
  // A search key's forced scope: hard conditions of their own, ANDed with the request's (see SearchContext.forcedScope).
  for (const { field, condition } of parseScope(forced)) {
    const compiled = compileCondition(state, field, condition, fieldTypes);
    if (compiled.is === 'mismatch') throw fieldError('SEARCH_BAD_REQUEST', `scope.${field}`, `(the search key's scope) ${compiled.problem}`);
    if (compiled.is === 'condition') conditions.push(compiled.condition);
    else if (compiled.is === 'nothing') matchNothing = someNothing = true;
  }
  conditions.sort((a, b) => conditionCost(a) - conditionCost(b));
  const compiled = compileMerchandising(state, request, rules.rules, rules.now);
  const merch = compiled.merch && someNothing ? { ...compiled.merch, pins: [] } : compiled.merch;
  return { conditions, disjunctive, matchNothing, merch, ruleProblems: compiled.problems };
}
