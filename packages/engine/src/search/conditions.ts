/**
 * The scope condition algebra: the one module that knows what a scope condition is. A condition's wire
 * shape (`["a", "b"]`, `{not: [...]}`, `{all, any, not}`, `{min, max, not}`, `{exists}`) is recognised here, once, by
 * {@link parseCondition}, into a tagged union ({@link Condition}); every other use of a condition goes
 * through that union:
 * - against a search key's forced scope: {@link allowsValue} (which facet buckets a key lets a shopper
 *   see; the forced conditions themselves compile like any other, beside the request's);
 * - against one catalog version: {@link compileCondition}, into a {@link PlanCondition} (plain data
 *   carried by the plan to the pool's workers);
 * - per doc range: {@link narrowBitset} (browse candidates) and {@link docTest} / {@link docPasses}
 *   (text matches, boosts, disjunctive facets, pinned products).
 *
 * Adding an operator means adding a member to both unions and a case to each switch below (TypeScript
 * flags a missing one), plus its wire shape in contract/scope-schema.ts. Pure functions.
 * @module
 */
import type { CatalogIndex, CatalogState } from '../catalog/catalog-index.js';
import { andInto, andNotInto, fullBitset } from '../catalog/columns/bitset.js';
import { numericValue } from '../catalog/field-values.js';
import { codeLookup } from '../catalog/columns/text-column-lookups.js';
import { codeCount, tailIndex } from '../catalog/columns/text-column.js';
import { numericAt, numericValues } from '../catalog/columns/numeric-column.js';
import { liveCodeDocs, queryFieldKind } from '../catalog/changes/tombstones.js';
import type { FieldTypes } from '../catalog/field-types.js';
import type { FieldKind, TextColumn } from '../catalog/catalog-index.js';
import { hierarchyOf, PATH_SEPARATOR, splitPath, type HierarchyTree } from '../catalog/columns/hierarchy-column.js';
import type { HierarchySetting } from '../contract/settings-schema.js';
import type { ScopeCondition } from '../contract/scope-schema.js';
import { seek } from './doc-seek.js';

/** One scope condition, parsed from its wire shape. */
export type Condition =
  /** `["a", "b"]`: a product having one of the values (text field). */
  | { op: 'in'; values: readonly string[] }
  /** `{not: ["a"]}`: a product having none of the values, also one without a value (text field). */
  | { op: 'notIn'; values: readonly string[] }
  /**
   * `{all: ["a", "b"], any?: [...], not?: [...]}` (`all` or `any` given): a product having every value of
   * `all`, at least one of `any` (when given) and none of `not` (text field). What several refinements
   * ANDed on one multi-valued field mean (tags `a` and `b`), which the list form (OR) cannot say.
   */
  | { op: 'every'; all: readonly string[]; any?: readonly string[]; not: readonly string[] }
  /** `{min?, max?, not?: [numbers]}` with a bound, or `{}`: a product whose number is within the bounds and not listed. */
  | { op: 'range'; min: number; max: number; not: readonly number[] }
  /** `{not: [numbers]}`: a product whose number is not listed, also one without a number (numeric field). */
  | { op: 'notNumbers'; not: readonly number[] }
  /** `{exists: true|false}`: a product that has (or has not) a value for the field, of any kind. */
  | { op: 'exists'; present: boolean }
  /** `{not: []}`: excludes nothing, whatever the field. */
  | { op: 'all' }
  /**
   * `["A > B", …]` on a hierarchy's name (`settings.hierarchies`): a product at or below one of the
   * paths (each written with {@link PATH_SEPARATOR}, levels trimmed, as {@link normalPath} gives it).
   */
  | { op: 'under'; paths: readonly string[] };

/** A path as requests and responses write it: levels split on " > ", trimmed, empty ones dropped, joined by " > ". */
export function normalPath(path: string): string {
  return splitPath(path, PATH_SEPARATOR).join(PATH_SEPARATOR);
}

/** Whether `path` (normal) is `ancestor` (normal) or below it. */
export function isAtOrBelow(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(ancestor + PATH_SEPARATOR);
}

/** A scope's conditions, parsed: field name and condition, in the scope's order. */
export type ParsedScope = { field: string; condition: Condition }[];

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isNumberList = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => typeof x === 'number');
const isOptionalNumber = (v: unknown): v is number | undefined => v === undefined || typeof v === 'number';

/**
 * Recognises a condition's wire shape; undefined when it is none of them (a body the contract's
 * schema accepted always parses). The one place that tells the shapes apart.
 */
export function parseCondition(wire: unknown): Condition | undefined {
  if (Array.isArray(wire)) return isStringList(wire) ? { op: 'in', values: wire } : undefined;
  if (wire === null || typeof wire !== 'object') return undefined;
  const keys = Object.keys(wire);
  const c = wire as Record<string, unknown>;
  if (keys.includes('exists')) return keys.length === 1 && typeof c.exists === 'boolean' ? { op: 'exists', present: c.exists } : undefined;
  if (keys.includes('all') || keys.includes('any')) {
    const { all, any, not } = c;
    if (!keys.every((k) => k === 'all' || k === 'any' || k === 'not')) return undefined;
    if ((all !== undefined && !isStringList(all)) || (any !== undefined && !isStringList(any)) || (not !== undefined && !isStringList(not))) return undefined;
    return { op: 'every', all: all ?? [], ...(any !== undefined && { any }), not: not ?? [] };
  }
  if (!keys.every((k) => k === 'min' || k === 'max' || k === 'not')) return undefined;
  const { min, max, not } = c;
  if (!isOptionalNumber(min) || !isOptionalNumber(max)) return undefined;
  if (min === undefined && max === undefined && not !== undefined) {
    // Exclusion only: the list's element type says the field kind it is meant for.
    if (Array.isArray(not) && not.length === 0) return { op: 'all' };
    if (isStringList(not)) return { op: 'notIn', values: not };
    return isNumberList(not) ? { op: 'notNumbers', not } : undefined;
  }
  if (not !== undefined && !isNumberList(not)) return undefined;
  // Every stored number is finite: a bound at the largest finite magnitude bounds nothing.
  return {
    op: 'range', min: min === undefined || min <= -Number.MAX_VALUE ? -Infinity : min,
    max: max === undefined || max >= Number.MAX_VALUE ? Infinity : max, not: not ?? [],
  };
}

/** {@link parseCondition} for a validated condition (the contract's schema admits only parseable shapes). */
export function parseValidCondition(wire: ScopeCondition): Condition {
  const condition = parseCondition(wire);
  if (!condition) throw new Error(`unrecognised scope condition ${JSON.stringify(wire)}: the contract's scope schema and the condition algebra disagree`);
  return condition;
}

/**
 * {@link parseValidCondition} for a scope key: on a key naming a hierarchy (`hierarchies`), a list of
 * values is a list of paths (`under`); its other shapes are kept, and refused when compiled.
 */
export function parseKeyCondition(wire: ScopeCondition, isHierarchy: boolean): Condition {
  const condition = parseValidCondition(wire);
  return isHierarchy ? asHierarchyCondition(condition) : condition;
}

/** A condition on a hierarchy's name: a list of values is a list of paths (`under`); other shapes are kept. */
function asHierarchyCondition(c: Condition): Condition {
  return c.op === 'in' ? { op: 'under', paths: [...new Set(c.values.map(normalPath))] } : c;
}

/** The website's hierarchies by name (`settings.hierarchies`). */
export type Hierarchies = Readonly<Record<string, HierarchySetting>>;

/**
 * Resolves the condition on scope key `key` against a catalog version: a hierarchy's condition when
 * `hierarchies` names the key (a hierarchy's name wins over a field's), else the field's
 * ({@link compileCondition}).
 */
export function compileKeyCondition(state: CatalogState, key: string, c: Condition, fieldTypes?: FieldTypes, hierarchies?: Hierarchies): CompiledCondition {
  return hierarchies && Object.hasOwn(hierarchies, key)
    ? compileHierarchyCondition(hierarchyOf(state, hierarchies[key]!), asHierarchyCondition(c))
    : compileCondition(state, key, c, fieldTypes);
}

/**
 * Parses a validated scope object (field name → condition); `hierarchies`: the names of the website's
 * hierarchies, whose keys hold paths (a hierarchy's name wins over a field of the same name).
 */
export function parseScope(scope: Readonly<Record<string, ScopeCondition>> | undefined, hierarchies?: ReadonlySet<string>): ParsedScope {
  return Object.entries(scope ?? {}).map(([field, wire]) => ({ field, condition: parseKeyCondition(wire, hierarchies?.has(field) === true) }));
}

/** The wire shape of a condition (what {@link parseCondition} reads back as the same condition). */
export function conditionToWire(c: Condition): ScopeCondition {
  switch (c.op) {
    case 'in': return [...c.values];
    case 'notIn': return { not: [...c.values] };
    case 'every': return { all: [...c.all], ...(c.any !== undefined && { any: [...c.any] }), ...(c.not.length > 0 && { not: [...c.not] }) };
    case 'notNumbers': return { not: [...c.not] };
    case 'exists': return { exists: c.present };
    case 'all': return { not: [] };
    case 'under': return [...c.paths];
    case 'range': {
      // `{not}` alone would keep products without a number: a bound that bounds nothing says one is required.
      const unbounded = c.min === -Infinity && c.max === Infinity && c.not.length > 0;
      return {
        ...(c.min !== -Infinity ? { min: c.min } : unbounded && { min: -Number.MAX_VALUE }),
        ...(c.max !== Infinity && { max: c.max }), ...(c.not.length > 0 && { not: [...c.not] }),
      };
    }
  }
}

/**
 * Whether a product having the value `value` (a facet bucket's key) passes the condition as far as
 * that value tells; a number is read from the text as the numeric columns read it.
 */
export function allowsValue(c: Condition, value: string): boolean {
  switch (c.op) {
    case 'all': return true;
    case 'under': return c.paths.some((p) => isAtOrBelow(value, p)); // a value is a node's path
    case 'exists': return c.present; // a bucket is a value
    case 'in': return c.values.includes(value);
    case 'notIn': return !c.values.includes(value);
    // A product holding this value alone passes when it is every value of `all`, one of `any` and not excluded.
    case 'every': return c.all.every((v) => v === value) && (c.any === undefined || c.any.includes(value)) && !c.not.includes(value);
    case 'notNumbers': {
      const n = numericValue(value);
      return n !== n || !c.not.includes(n);
    }
    case 'range': {
      const n = numericValue(value);
      return n >= c.min && n <= c.max && !c.not.includes(n); // NaN compares false: no number, not allowed
    }
  }
}

// ---- Against one catalog version ----------------------------------------------------------------

/** One scope condition resolved against a catalog version: field numbers and dictionary codes (plain data). */
export type PlanCondition =
  | { kind: 'in'; field: number; codes: number[] }
  | { kind: 'notIn'; field: number; codes: number[] }
  /** `every`: a doc having each code of `all`, one of `any` (null: no such part) and none of `not`. */
  | { kind: 'every'; field: number; all: number[]; any: number[] | null; not: number[] }
  | { kind: 'range'; field: number; min: number; max: number; not: number[]; requireValue: boolean }
  | { kind: 'exists'; field: number; present: boolean }
  /** A hierarchy's condition: as `in`, over the hierarchy's node column (catalog/columns/hierarchy-column.ts). */
  | { kind: 'under'; column: TextColumn; codes: number[] };

/**
 * A condition compiled against a catalog version: a plan condition; `all` (filters nothing there);
 * `nothing` (matches no product there); or `mismatch`, the condition does not fit the field's kind
 * (`problem` says why, after the field's name).
 */
export type CompiledCondition =
  | { is: 'condition'; condition: PlanCondition }
  | { is: 'all' }
  | { is: 'nothing' }
  | { is: 'mismatch'; problem: string };

const ALL: CompiledCondition = { is: 'all' };
const NOTHING: CompiledCondition = { is: 'nothing' };
const mismatch = (problem: string): CompiledCondition => ({ is: 'mismatch', problem });
const planned = (condition: PlanCondition): CompiledCondition => ({ is: 'condition', condition });

/** Dictionary codes of `values` some live product has in text field `field`, ascending. */
function textCodes(state: CatalogState, field: number, values: readonly string[]): number[] {
  const lookup = codeLookup(state, field);
  const codes = new Set<number>();
  for (const v of values) {
    const c = lookup.get(v);
    // A value no live product has (deleted, or patched away) is unknown, as to a one-go build.
    if (c !== undefined && liveCodeDocs(state, field, c) > 0) codes.add(c);
  }
  return [...codes].sort((a, b) => a - b);
}

/**
 * Resolves the condition on field `name` against a catalog version (see {@link CompiledCondition});
 * `fieldTypes`: the website's pinned types (see {@link queryFieldKind}).
 */
export function compileCondition(state: CatalogState, name: string, c: Condition, fieldTypes?: FieldTypes): CompiledCondition {
  const fid = state.fieldByName.get(name);
  const field = fid === undefined ? undefined : state.index.fields[fid];
  const kind = fid === undefined ? undefined : queryFieldKind(state, fid, fieldTypes);
  switch (c.op) {
    case 'all': return ALL;
    case 'under': return mismatch('names no hierarchy of the website: use a list of values');
    case 'in': {
      if (kind === 'numeric') return mismatch('names a numeric field: use {min, max}, not a list of values');
      const codes = field?.text ? textCodes(state, fid!, c.values) : [];
      return codes.length === 0 ? NOTHING : planned({ kind: 'in', field: fid!, codes });
    }
    case 'notIn': {
      if (kind === 'numeric') return mismatch('names a numeric field: use {not: [numbers]}');
      const codes = field?.text ? textCodes(state, fid!, c.values) : [];
      return codes.length === 0 ? ALL : planned({ kind: 'notIn', field: fid!, codes });
    }
    case 'every': {
      if (kind === 'numeric') return mismatch('names a numeric field: {all, any, not} takes text values; use {min, max}');
      const codesOf = (values: readonly string[]) => field?.text ? textCodes(state, fid!, values) : [];
      const all = codesOf(c.all);
      // A value of `all` no live product has: no product has every value.
      if (all.length < new Set(c.all).size) return NOTHING;
      const any = c.any === undefined ? null : codesOf(c.any);
      if (any !== null && any.length === 0) return NOTHING;
      const not = codesOf(c.not);
      // The simpler forms, whose filters are cheaper: `{all: ["a"]}` is `["a"]`, `{all: [], not}` is `{not}`.
      if (any === null && not.length === 0 && all.length <= 1) return all.length === 0 ? ALL : planned({ kind: 'in', field: fid!, codes: all });
      if (any === null && all.length === 0) return planned({ kind: 'notIn', field: fid!, codes: not });
      return planned({ kind: 'every', field: fid!, all, any, not });
    }
    case 'range':
    case 'notNumbers': {
      if (kind === 'text') return mismatch('names a text field: use a list of values, not {min, max}');
      const requireValue = c.op === 'range';
      // No product has a number there: a bound matches nothing, an exclusion keeps everything.
      if (kind !== 'numeric' || !field!.numeric) return requireValue ? NOTHING : ALL;
      return planned(c.op === 'range'
        ? { kind: 'range', field: fid!, min: c.min, max: c.max, not: [...c.not], requireValue }
        : { kind: 'range', field: fid!, min: -Infinity, max: Infinity, not: [...c.not], requireValue });
    }
    case 'exists':
      // Every value of a field, number or not, has a code in its text column.
      if (!field?.text) return c.present ? NOTHING : ALL;
      return planned({ kind: 'exists', field: fid!, present: c.present });
  }
}

/**
 * Resolves the condition on a hierarchy's name against the hierarchy's tree on a catalog version: a
 * list of paths is the list of their nodes (a path no product has matches nothing); `{not: []}`
 * filters nothing; any other shape does not fit a hierarchy.
 */
export function compileHierarchyCondition(tree: HierarchyTree, c: Condition): CompiledCondition {
  if (c.op === 'all') return ALL;
  if (c.op !== 'under') return mismatch('names a hierarchy: use a list of paths such as ["A > B"]');
  const codes = [...new Set(c.paths.map((p) => tree.nodeOf(p)).filter((x) => x !== undefined))].sort((a, b) => a - b);
  return codes.length === 0 ? NOTHING : planned({ kind: 'under', column: tree.column, codes });
}

/**
 * A parsed scope resolved against a catalog version: its conditions, cheapest first, and whether one
 * of them matches nothing there; or the first condition that does not fit its field's kind.
 */
export function compileScope(
  state: CatalogState, scope: ParsedScope, fieldTypes?: FieldTypes, hierarchies?: Hierarchies,
): { conditions: PlanCondition[]; nothing: boolean } | { mismatch: { field: string; problem: string } } {
  const conditions: PlanCondition[] = [];
  let nothing = false;
  for (const { field, condition } of scope) {
    const compiled = compileKeyCondition(state, field, condition, fieldTypes, hierarchies);
    if (compiled.is === 'mismatch') return { mismatch: { field, problem: compiled.problem } };
    if (compiled.is === 'nothing') nothing = true;
    else if (compiled.is === 'condition') conditions.push(compiled.condition);
  }
  return { conditions: conditions.sort((a, b) => conditionCost(a) - conditionCost(b)), nothing };
}

/**
 * Relative cost of narrowing candidates by a condition: postings ORs (work follows the listed docs)
 * before per-doc checks, so the checks see fewer candidates.
 */
export function conditionCost(c: PlanCondition): number {
  return c.kind === 'in' || c.kind === 'under' || c.kind === 'every' ? 0 : 1;
}

// ---- Per doc range --------------------------------------------------------------------------------

function numericOk(v: number, c: PlanCondition & { kind: 'range' }): boolean {
  if (v !== v) return !c.requireValue; // no number
  return v >= c.min && v <= c.max && (c.not.length === 0 || !c.not.includes(v));
}

/** The text column a value-list condition reads: its field's, or a hierarchy's node column. */
function listColumn(index: CatalogIndex, c: PlanCondition & { kind: 'in' | 'notIn' | 'under' }): TextColumn {
  return c.kind === 'under' ? c.column : index.fields[c.field].text!;
}

/** Whether text column `text` lists `code` for doc `d`. */
function docHasCode(text: TextColumn, d: number, code: number): boolean {
  if (text.single) return text.single[d] === code;
  for (let j = text.offsets[d], end = text.offsets[d + 1]; j < end; j++) if (text.codes[j] === code) return true;
  return false;
}

/** Whether doc `d` passes an `every` condition. */
function everyPasses(index: CatalogIndex, c: PlanCondition & { kind: 'every' }, d: number): boolean {
  const text = index.fields[c.field].text!;
  for (const code of c.all) if (!docHasCode(text, d, code)) return false;
  if (c.any !== null && !c.any.some((code) => docHasCode(text, d, code))) return false;
  return !c.not.some((code) => docHasCode(text, d, code));
}

/** Whether doc `d` passes a resolved condition (the per-doc form of the filters). */
export function docPasses(index: CatalogIndex, c: PlanCondition, d: number): boolean {
  switch (c.kind) {
    case 'range': return numericOk(numericAt(index.fields[c.field], d), c);
    case 'every': return everyPasses(index, c, d);
    case 'exists': return (codeCount(index.fields[c.field].text!, d) > 0) === c.present;
    case 'in':
    case 'under':
    case 'notIn': {
      const { offsets, codes, single } = listColumn(index, c);
      let listed = false;
      if (single) listed = single[d] >= 0 && c.codes.includes(single[d]);
      else for (let j = offsets[d], end = offsets[d + 1]; j < end && !listed; j++) listed = c.codes.includes(codes[j]);
      return listed === (c.kind !== 'notIn');
    }
  }
}

/** Whether doc `d` passes every condition. */
export function docPassesAll(index: CatalogIndex, conditions: readonly PlanCondition[], d: number): boolean {
  for (const c of conditions) if (!docPasses(index, c, d)) return false;
  return true;
}

/** Lists longer than this are tested through a marker per code rather than scanned per doc. */
const SCANNED_CODES = 16;
/** Dictionaries up to this size are marked whatever the list's length (a marker costs at most 64 KiB). */
const MARKED_DICTIONARY = 65_536;

/**
 * A per-doc test of one condition, set up once for a loop over many docs: a long value list gets a
 * marker per dictionary code, numbers are read through the hoisted column.
 */
export function docTest(index: CatalogIndex, c: PlanCondition): (d: number) => boolean {
  if (c.kind === 'range') {
    const { byCode, codes } = numericValues(index.fields[c.field]);
    return (d) => numericOk(byCode[codes[d] + 1], c);
  }
  if (c.kind === 'exists') {
    const text = index.fields[c.field].text!;
    const present = c.present;
    return (d) => (codeCount(text, d) > 0) === present;
  }
  if (c.kind === 'every') return (d) => everyPasses(index, c, d);
  const text = listColumn(index, c);
  const list = c.codes;
  const want = c.kind !== 'notIn';
  const { offsets, codes, single } = text;
  // A marker per code when the list is long, or the dictionary small enough to mark (one read per
  // value, no scan); a short list against a large dictionary (refIds) is scanned instead.
  if (list.length > SCANNED_CODES || text.dictSize <= MARKED_DICTIONARY) {
    const marker = new Uint8Array(text.dictSize);
    for (const code of list) marker[code] = 1;
    if (single) return (d) => (single[d] >= 0 && marker[single[d]] === 1) === want;
    return (d) => {
      for (let j = offsets[d], end = offsets[d + 1]; j < end; j++) if (marker[codes[j]] === 1) return want;
      return !want;
    };
  }
  if (single) return (d) => (single[d] >= 0 && list.includes(single[d])) === want;
  return (d) => {
    for (let j = offsets[d], end = offsets[d + 1]; j < end; j++) if (list.includes(codes[j])) return want;
    return !want;
  };
}

/** Sets in `listed` (a bitset over [lo, hi)) the docs of `docs[from .. to)` (ascending) within [lo, hi). */
function listDocs(docs: Uint32Array, from: number, to: number, lo: number, hi: number, listed: Uint32Array): void {
  for (let i = seek(docs, from, to, lo); i < to; i++) {
    const doc = docs[i];
    if (doc >= hi) break;
    const local = doc - lo;
    listed[local >>> 5] |= 1 << (local & 31);
  }
}

/** A bitset over [lo, hi) (lo a multiple of 32; `words` long) of the docs listing one of `list`'s codes in `text`. */
function listedDocs(text: TextColumn, list: readonly number[], lo: number, hi: number, words: number): Uint32Array {
  const { valueOffsets, valueDocs, valueTail } = text;
  const listed = new Uint32Array(words);
  for (const code of list) {
    listDocs(valueDocs, valueOffsets[code], valueOffsets[code + 1], lo, hi, listed);
    const t = tailIndex(valueTail, code);
    if (t >= 0) listDocs(valueTail!.docs, valueTail!.offsets[t], valueTail!.offsets[t + 1], lo, hi, listed);
  }
  return listed;
}

/** How many postings a value-list condition's codes have (the docs listing them would visit). */
function postingsOf(text: TextColumn, list: readonly number[]): number {
  let n = 0;
  for (const code of list) {
    n += text.valueOffsets[code + 1] - text.valueOffsets[code];
    const t = tailIndex(text.valueTail, code);
    if (t >= 0) n += text.valueTail!.offsets[t + 1] - text.valueTail!.offsets[t];
  }
  return n;
}

/**
 * {@link docTest} for about `checks` docs of [lo, hi) (lo a multiple of 32): a value-list condition
 * whose postings are fewer than a few times the checks is tested through a bitset of its listed docs
 * (the postings walked in order, then one bit read per doc) rather than by reading each doc's codes at
 * random (a text search under a category: a few thousand listed docs, tens of thousands of matches).
 */
export function docTestWithin(index: CatalogIndex, c: PlanCondition, lo: number, hi: number, checks: number): (d: number) => boolean {
  if (c.kind !== 'in' && c.kind !== 'notIn' && c.kind !== 'under') return docTest(index, c);
  if (postingsOf(listColumn(index, c), c.codes) > 4 * checks) return docTest(index, c);
  const listed = fullBitset(hi - lo);
  narrowBitset(index, c, lo, hi, listed);
  return (d) => (listed[(d - lo) >>> 5] & (1 << ((d - lo) & 31))) !== 0;
}

/** Narrows a candidate bitset over [lo, hi) (lo a multiple of 32) to the docs passing `c`. */
export function narrowBitset(index: CatalogIndex, c: PlanCondition, lo: number, hi: number, candidates: Uint32Array): void {
  if (c.kind === 'in' || c.kind === 'notIn' || c.kind === 'under') {
    // OR of the listed values' postings, then AND (or AND NOT): work follows the listed docs.
    const listed = listedDocs(listColumn(index, c), c.codes, lo, hi, candidates.length);
    if (c.kind !== 'notIn') andInto(candidates, listed);
    else andNotInto(candidates, listed);
    return;
  }
  if (c.kind === 'every') {
    // The same by parts: AND each value of `all`, AND the OR of `any`, AND NOT the OR of `not`.
    const text = index.fields[c.field].text!;
    for (const code of c.all) andInto(candidates, listedDocs(text, [code], lo, hi, candidates.length));
    if (c.any !== null) andInto(candidates, listedDocs(text, c.any, lo, hi, candidates.length));
    if (c.not.length > 0) andNotInto(candidates, listedDocs(text, c.not, lo, hi, candidates.length));
    return;
  }
  // Per-doc checks on the remaining candidates (postings filters ran first and narrowed the set).
  const passes = docTest(index, c);
  for (let wi = 0; wi < candidates.length; wi++) {
    let word = candidates[wi];
    let keep = word;
    while (word !== 0) {
      const low = word & -word;
      word ^= low;
      if (!passes(lo + (wi << 5) + 31 - Math.clz32(low))) keep &= ~low;
    }
    candidates[wi] = keep;
  }
}

/**
 * One held-back condition (not among `plan.conditions`) and the aggregations (indexes) that ignore it.
 * A field's condition that matches nothing on the catalog version (only unknown values) is held back
 * as a value list with no value, so that its siblings are still counted (see plan-filters.ts).
 */
export interface PlanDisjunctive {
  condition: PlanCondition;
  aggregations: number[];
}
