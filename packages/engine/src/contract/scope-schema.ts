/**
 * The scope syntax (field name → condition), shared by the search request, a search key's forced scope
 * and the merchandising rules' boosts, so all three accept exactly the same conditions.
 * @module
 */
import { Type, type Static } from '@sinclair/typebox';
import { MAX_SCOPE_VALUES } from './limits.js';

const opt = Type.Optional;

/** A text scope condition: accepted values (OR). */
export const TextValues = Type.Array(Type.String(), { maxItems: MAX_SCOPE_VALUES });
/** A numeric scope condition (inclusive bounds; `not` is aisle's exclusion extension). */
export const NumericScopeSchema = Type.Object({
  min: opt(Type.Number()), max: opt(Type.Number()), not: opt(Type.Array(Type.Number(), { maxItems: MAX_SCOPE_VALUES })),
}, { additionalProperties: false });
/** aisle's text exclusion extension `{not: [...]}`. */
export const TextNot = Type.Object({ not: TextValues }, { additionalProperties: false });

/**
 * `{all: [...], any?: [...], not?: [...]}` (`all` or `any` given): the products having every value of
 * `all`, one of `any` and none of `not` (text field): refinements ANDed on one multi-valued field.
 */
export const TextAll = Type.Union([
  Type.Object({ all: TextValues, any: opt(TextValues), not: opt(TextValues) }, { additionalProperties: false }),
  Type.Object({ any: TextValues, not: opt(TextValues) }, { additionalProperties: false }),
]);

/** `{exists: true|false}`: the products that have (or have not) a value for the field, whatever its kind. */
export const ExistsSchema = Type.Object({ exists: Type.Boolean() }, { additionalProperties: false });

/**
 * One scope condition. The numeric form comes before `{not}` so a mistyped numeric condition is
 * reported against it. Its meaning is search/conditions.ts's, which parses these shapes (and only
 * there are they told apart).
 */
export const ScopeConditionSchema = Type.Union([TextValues, NumericScopeSchema, TextNot, ...TextAll.anyOf, ExistsSchema], {
  description: 'an array of strings (text field: any of them), {not: [strings]}, {all: [strings], any?: [strings], not?: [strings]} '
    + '(text field: every value of all, one of any, none of not), {min?, max?, not?: [numbers]} (numeric field), or {exists: true|false} (any field)',
});

/** One scope condition as on the wire. */
export type ScopeCondition = Static<typeof ScopeConditionSchema>;
/** A scope as on the wire: field name → condition; the fields' conditions combine with AND. */
export type ScopeConditions = Record<string, ScopeCondition>;

