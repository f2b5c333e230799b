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
import type { HierarchySetting } from '../contract/settings-schema.js';
import { hierarchyOf } from '../catalog/columns/hierarchy-column.js';
import { compileKeyCondition, conditionCost, parseScope, type CompiledCondition, type Condition, type PlanCondition } from './conditions.js';
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

/** What compiling the filters needs from the website's settings and the caller. */
export interface FilterContext {
  /** The pinned field types (`settings.fields`). */
  fieldTypes?: FieldTypes;
  /** The website's hierarchies (`settings.hierarchies`): a scope key naming one holds paths. */
  hierarchies?: Readonly<Record<string, HierarchySetting>>;
  /** A search key's forced scope: conditions of their own beside the request's (see SearchContext.forcedScope). */
  forcedScope?: ScopeConditions;
  /**
   * Per scope key, the aggregations (indexes of the plan's count columns) that ignore its condition:
   * disjunctive facets, the facet search's counts, hierarchical facets (see search-plan.ts).
   */
  ownConditionCounts?: ReadonlyMap<string, readonly number[]>;
}

/**
 * Compiles the scope (and a search key's forced scope), disjunctive holds and merchandising of `request`. A scope key with counts that
 * ignore its condition (`context.ownConditionCounts`) is held back for them (see disjunctive-facets.ts).
 * Throws `SEARCH_BAD_REQUEST` naming the first scope condition that does not fit its field's kind, or
 * its hierarchy.
 */
export function compileFilters(state: CatalogState, request: SearchRequest, rules: RulesInForce, context: FilterContext = {}): PlanFilters {
  const { fieldTypes, forcedScope } = context;
  const hierarchies = context.hierarchies ?? {};
  const hierarchyNames = new Set(Object.keys(hierarchies));
  const compileKey = (field: string, condition: Condition, whose = ''): CompiledCondition => {
    const compiled = compileKeyCondition(state, field, condition, fieldTypes, hierarchies);
    if (compiled.is === 'mismatch') throw fieldError('SEARCH_BAD_REQUEST', `scope.${field}`, `${whose}${compiled.problem}`);
    return compiled;
  };
  const conditions: PlanCondition[] = [];
  const disjunctive: PlanDisjunctive[] = [];
  let matchNothing = false;
  // Some condition, held back or not, matches nothing: no pinned product passes the request's filters.
  let someNothing = false;
  for (const { field, condition } of parseScope(request.scope, hierarchyNames)) {
    const compiled = compileKey(field, condition);
    if (compiled.is === 'all') continue;
    const fid = state.fieldByName.get(field);
    if (compiled.is === 'nothing') someNothing = true;
    // A held back condition matching nothing (only unknown values) must not empty the whole search
    // when there are values to count: it is held back as a list with no value.
    const held: PlanCondition | undefined = compiled.is === 'condition' ? compiled.condition
      : Object.hasOwn(hierarchies, field) ? { kind: 'under', column: hierarchyOf(state, hierarchies[field]!).column, codes: [] }
        : fid !== undefined && state.index.fields[fid].text !== undefined ? { kind: 'in', field: fid, codes: [] } : undefined;
    const counts = context.ownConditionCounts?.get(field) ?? [];
    if (counts.length > 0 && held) disjunctive.push({ condition: held, aggregations: [...counts] });
    else if (compiled.is === 'condition') conditions.push(compiled.condition);
    else matchNothing = true;
  }
  // A search key's forced scope: hard conditions of their own, ANDed with the request's and never held
  // back (see SearchContext.forcedScope), so no count reveals what the key hides.
  for (const { field, condition } of parseScope(forcedScope, hierarchyNames)) {
    const compiled = compileKey(field, condition, '(the search key\'s scope) ');
    if (compiled.is === 'condition') conditions.push(compiled.condition);
    else if (compiled.is === 'nothing') matchNothing = someNothing = true;
  }
  conditions.sort((a, b) => conditionCost(a) - conditionCost(b));
  const compiled = compileMerchandising(state, request, rules.rules, rules.now, context.hierarchies);
  const merch = compiled.merch && someNothing ? { ...compiled.merch, pins: [] } : compiled.merch;
  return { conditions, disjunctive, matchNothing, merch, ruleProblems: compiled.problems };
}
