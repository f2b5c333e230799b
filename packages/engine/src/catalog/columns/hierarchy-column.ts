/**
 * A hierarchy's tree and its node column, derived from a catalog version: the structure hierarchical
 * facets count on and hierarchy scopes filter by (`settings.hierarchies`, docs/http-api.md,
 * "Hierarchical facets").
 *
 * The paths the products hold, in any of the three declared forms (one path string split by a
 * separator, one field per level, an array of levels), are interned into a tree of nodes
 * (hierarchy-tree.ts); each doc then gets, as the codes of a multi-valued text column, the node of
 * every path prefix it has — its category and every ancestor of it, each once. So:
 * - "at or below path P" is "has P's node": a value-list condition over this column (one posting list
 *   per node, so a subtree is one list, whatever its size);
 * - a node's count is its code's count, exact also for a product with several paths in one subtree
 *   (it holds each ancestor once), and the very facet counting loops of flat fields count it.
 * The column lives on SharedArrayBuffers and is carried by the search plan to the pool's workers.
 *
 * A version gets its hierarchies from the version it was made from whenever it can, at the cost of
 * the change (derived-carry.ts): appended docs are added to the previous column
 * ({@link appendedHierarchySteps}: their nodes at the end of the per-doc arrays, their docs in the
 * inverted column's tail, as an append to a text column), tombstones change nothing (deleted docs
 * are masked wherever a column is read). A one-go derivation ({@link buildHierarchySteps}, linear in
 * the catalog) is left to versions built in one go, which derive in steps, before they are published,
 * the hierarchies the version before them had; and to a hierarchy's first use.
 * Pure functions of an immutable catalog version; the structure is kept with the version.
 * @module
 */
import type { CatalogState, MultiValuedColumn, TextColumn } from '../catalog-index.js';
import type { HierarchySetting } from '../../contract/settings-schema.js';
import { codeAt, codeCount, foldedInverted } from './text-column.js';
import { extendShared, growableArray } from './shared-arrays.js';
import { appendTextColumn } from './append-text-column.js';
import { runSteps, STEP, type Steps } from '../steps.js';
import { TreeBuilder, type LevelSource } from './hierarchy-tree.js';

export { PATH_SEPARATOR, splitPath } from './hierarchy-tree.js';

/**
 * A hierarchy's node column: per doc the nodes of every prefix of its paths (codes = node ids, root
 * first), plus what counting reads instead of them: each doc's deepest node and each node's parent.
 */
export interface HierarchyColumn extends MultiValuedColumn {
  /** Per doc, its one deepest node (-1: no path; -2: several paths, read its codes). */
  deepest: Int32Array;
  /** Per node, its parent (-1: a top-level node); a parent's id is below its children's. */
  parent: Int32Array;
}

/** Whether a text column is a hierarchy's node column. */
export function isHierarchyColumn(column: TextColumn): column is HierarchyColumn {
  return (column as Partial<HierarchyColumn>).deepest !== undefined;
}

/**
 * Adds the docs `at(0) … at(length - 1)` to a hierarchy's counts per node: a doc with one path counts
 * at its deepest node, whose count goes up the tree at the end (one read per doc, not one per level);
 * a doc with several paths counts each of its nodes once.
 */
export function countHierarchyDocs(column: HierarchyColumn, length: number, at: (k: number) => number, counts: Uint32Array): void {
  const { deepest, parent, offsets, codes } = column;
  const below = new Uint32Array(counts.length);
  for (let k = 0; k < length; k++) {
    const d = at(k);
    const x = deepest[d]!;
    if (x >= 0) below[x]++;
    else if (x === -2) for (let j = offsets[d]!, end = offsets[d + 1]!; j < end; j++) counts[codes[j]!]++;
  }
  // Children have higher ids than their parents: a descending pass sums each subtree before its parent.
  for (let x = below.length - 1; x >= 0; x--) {
    const n = below[x]!;
    if (n === 0) continue;
    counts[x] += n;
    if (parent[x]! >= 0) below[parent[x]!] += n;
  }
}

/** A hierarchy of a catalog version: its tree (calling thread) and its node column (shareable). */
export interface HierarchyTree {
  /** Per doc, the nodes of every prefix of its paths (codes = node ids); see the module doc. */
  column: HierarchyColumn;
  /** Per node, its own level's value (nodes below `column.dictSize`; later versions may add more). */
  value: readonly string[];
  /** Per node, its parent (-1: a top-level node). */
  parent: Int32Array;
  /** The children of `node` (-1: the top-level nodes), in insertion order. */
  childrenOf(node: number): readonly number[];
  /** The node of a path (levels joined by `PATH_SEPARATOR`), if some product of the version has it. */
  nodeOf(path: string): number | undefined;
}

/** The tree of `column` on `builder`'s first `column.dictSize` nodes; `builder` is kept for extensions. */
function treeOf(builder: TreeBuilder, column: HierarchyColumn): HierarchyTree {
  const count = column.dictSize;
  const tree: HierarchyTree = {
    column, value: builder.value, parent: column.parent,
    childrenOf: (node) => builder.childrenOf(node, count),
    nodeOf: (path) => builder.nodeOf(path, count),
  };
  builders.set(tree, builder);
  builder.owner = tree;
  return tree;
}

const builders = new WeakMap<HierarchyTree, TreeBuilder>();

/**
 * Per doc of `from .. n` its deepest nodes: `single[d - from]` the one node of a doc with one path
 * (-1: none, -2: several, listed in `several`, by doc).
 */
interface DeepestNodes {
  single: Int32Array;
  several: Map<number, number[]>;
}

/** The per-doc deepest nodes of hierarchy `setting` for docs `from ..` of `state`, interning their paths into `tree`. */
function* deepestNodes(state: CatalogState, setting: HierarchySetting, tree: TreeBuilder, from: number): Steps<DeepestNodes> {
  const n = state.index.docCount;
  const single = new Int32Array(n - from).fill(-1);
  const several = new Map<number, number[]>();
  const sourceOf = (name: string) => {
    const fid = state.fieldByName.get(name);
    const text = fid === undefined ? undefined : state.index.fields[fid]!.text;
    return text && { text, level: { field: fid!, dictionary: state.dictionaries[fid!]!, dictSize: text.dictSize } satisfies LevelSource };
  };
  const set = (d: number, nodes: number[]): void => {
    const distinct = [...new Set(nodes.filter((x) => x >= 0))];
    if (distinct.length === 1) single[d - from] = distinct[0]!;
    else if (distinct.length > 1) { single[d - from] = -2; several.set(d, distinct); }
  };
  if ('fields' in setting) {
    const levels = setting.fields.map(sourceOf);
    for (let d = from; d < n; d++) {
      if ((d & (STEP - 1)) === 0) yield;
      // The path is the levels' values up to the first level without one (a level's first value).
      let node = -1;
      for (const level of levels) {
        if (!level || codeCount(level.text, d) === 0) break;
        node = tree.childOf(node, codeAt(level.text, d, 0), level.level);
      }
      single[d - from] = node;
    }
    return { single, several };
  }
  const source = sourceOf(setting.field);
  if (!source) return { single, several };
  const { text, level } = source;
  if (setting.separator !== undefined) {
    // One path per value: each distinct value is split once.
    const separator = setting.separator;
    for (let d = from; d < n; d++) {
      if ((d & (STEP - 1)) === 0) yield;
      const k = codeCount(text, d);
      if (k === 1) single[d - from] = tree.nodeOfSplit(codeAt(text, d, 0), level, separator);
      else if (k > 1) set(d, Array.from({ length: k }, (_, i) => tree.nodeOfSplit(codeAt(text, d, i), level, separator)));
    }
    return { single, several };
  }
  // An array of levels: the doc's values in the order given. A text column keeps a doc's distinct
  // values in order, so a path naming a level twice ("Leggings > Leggings") is read from the store.
  const differs = state.store.differsFromCodes(setting.field);
  const read = state.store.fieldReader(setting.field);
  for (let d = from; d < n; d++) {
    if ((d & (STEP - 1)) === 0) yield;
    const k = codeCount(text, d);
    if (k === 0) continue;
    if (differs(d)) {
      const value = read(d);
      const path = (Array.isArray(value) ? value : [value]).filter((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean').map((v) => String(v).trim());
      set(d, [tree.nodeOfLevels(path.filter((l) => l.length > 0))]);
    } else {
      let node = -1;
      for (let i = 0; i < k; i++) node = tree.childOf(node, codeAt(text, d, i), level);
      single[d - from] = node;
    }
  }
  return { single, several };
}

/** The union of the ancestor chains of a doc's several deepest nodes, root-most first (then by id). */
function chainOfSeveral(tree: TreeBuilder, nodes: readonly number[]): number[] {
  const all = new Set<number>();
  for (const deep of nodes) for (let x = deep; x >= 0 && !all.has(x); x = tree.parent[x]!) all.add(x);
  return [...all].sort((a, b) => tree.depth[a]! - tree.depth[b]! || a - b);
}

/** Builds the tree and node column of hierarchy `setting` on `state` in one go, in steps (see the module doc). */
export function* buildHierarchySteps(state: CatalogState, setting: HierarchySetting): Steps<HierarchyTree> {
  const tree = new TreeBuilder();
  const { single, several } = yield* deepestNodes(state, setting, tree, 0);
  const n = single.length;
  const nodeCount = tree.size;
  const depth = tree.depth;
  const chains = new Map<number, number[]>();
  for (const [d, nodes] of several) chains.set(d, chainOfSeveral(tree, nodes));
  // Growable, so that the next version's appended docs extend them in place.
  const offsets = growableArray(Uint32Array, n + 1);
  for (let d = 0; d < n; d++) {
    const deep = single[d]!;
    offsets[d + 1] = offsets[d]! + (deep >= 0 ? depth[deep]! + 1 : deep === -2 ? chains.get(d)!.length : 0);
  }
  yield;
  const codes = growableArray(Uint32Array, offsets[n]!);
  const perNode = new Uint32Array(nodeCount + 1);
  for (let d = 0; d < n; d++) {
    if ((d & (STEP - 1)) === 0) yield;
    const deep = single[d]!;
    if (deep >= 0) {
      // Root first: the chain is written from its end.
      for (let x = deep, at = offsets[d + 1]! - 1; x >= 0; x = tree.parent[x]!, at--) { codes[at] = x; perNode[x + 1]++; }
    } else if (deep === -2) {
      let at = offsets[d]!;
      for (const x of chains.get(d)!) { codes[at++] = x; perNode[x + 1]++; }
    }
  }
  // The inverted column: per node, its docs ascending (docs are visited in order).
  const valueOffsets = growableArray(Uint32Array, nodeCount + 1);
  for (let x = 0; x < nodeCount; x++) valueOffsets[x + 1] = valueOffsets[x]! + perNode[x + 1]!;
  const valueDocs = growableArray(Uint32Array, codes.length);
  const fill = Uint32Array.from(valueOffsets.subarray(0, nodeCount));
  for (let d = 0; d < n; d++) {
    if ((d & (STEP - 1)) === 0) yield;
    for (let j = offsets[d]!, end = offsets[d + 1]!; j < end; j++) valueDocs[fill[codes[j]!]++] = d;
  }
  const deepest = growableArray(Int32Array, n);
  deepest.set(single);
  const parent = growableArray(Int32Array, nodeCount);
  parent.set(tree.parent);
  return treeOf(tree, { dictSize: nodeCount, offsets, codes, valueOffsets, valueDocs, deepest, parent });
}

/** {@link buildHierarchySteps} in one go. */
export function buildHierarchy(state: CatalogState, setting: HierarchySetting): HierarchyTree {
  return runSteps(buildHierarchySteps(state, setting));
}

/**
 * Hierarchy `setting` of `state`, a version holding the docs of `tree`'s version unchanged in the
 * hierarchy's fields and docs appended after them: `tree` with the new docs' paths added (new nodes
 * after the old ones, as a one-go build numbers them). Costs the new docs (and the inverted column's
 * tail, as an append to a text column does), not the catalog.
 */
export function* appendedHierarchySteps(tree: HierarchyTree, state: CatalogState, setting: HierarchySetting): Steps<HierarchyTree> {
  const old = tree.column;
  const n = old.deepest.length;
  const N = state.index.docCount;
  if (N === n) return tree;
  const shared = builders.get(tree)!;
  // Only the latest version made from a builder adds nodes to it (see hierarchy-tree.ts).
  const builder = shared.owner === tree && shared.size === old.dictSize ? shared : TreeBuilder.copyOf(shared, old.dictSize);
  const { single, several } = yield* deepestNodes(state, setting, builder, n);
  const docCodes: number[][] = [];
  for (let j = 0; j < single.length; j++) {
    const deep = single[j]!;
    const chain: number[] = [];
    if (deep >= 0) for (let x = deep; x >= 0; x = builder.parent[x]!) chain.push(x);
    docCodes.push(deep === -2 ? chainOfSeveral(builder, several.get(n + j)!) : chain.reverse());
  }
  const nodeCount = builder.size;
  const text = appendTextColumn(old, n, docCodes, nodeCount) as MultiValuedColumn;
  const deepest = extendShared(old.deepest, N);
  deepest.set(single, n);
  const parent = extendShared(old.parent, nodeCount);
  for (let x = old.dictSize; x < nodeCount; x++) parent[x] = builder.parent[x]!;
  const { offsets, codes, valueOffsets, valueDocs, valueTail } = text;
  return treeOf(builder, { dictSize: nodeCount, offsets, codes, valueOffsets, valueDocs, valueTail, deepest, parent });
}

/**
 * What a snapshot keeps of a hierarchy (catalog/durability/snapshot.ts): its nodes' values and the
 * arrays of its node column, the inverted column laid out as a one-go build lays it (appended docs
 * folded in), so that a restart reads it instead of deriving it (decision 0055).
 */
export interface HierarchyParts {
  /** Per node, its own level's value. */
  values: readonly string[];
  offsets: Uint32Array;
  codes: Uint32Array;
  valueOffsets: Uint32Array;
  valueDocs: Uint32Array;
  deepest: Int32Array;
  parent: Int32Array;
}

/** The parts of `tree` (see {@link HierarchyParts}), views of its arrays where they need no folding. */
export function hierarchyParts(tree: HierarchyTree): HierarchyParts {
  const { column } = tree;
  const n = column.deepest.length;
  const { valueOffsets, valueDocs } = foldedInverted(column);
  return {
    values: tree.value.slice(0, column.dictSize),
    offsets: column.offsets.subarray(0, n + 1), codes: column.codes.subarray(0, column.offsets[n]),
    valueOffsets: valueOffsets.subarray(0, column.dictSize + 1), valueDocs: valueDocs.subarray(0, valueOffsets[column.dictSize]),
    deepest: column.deepest.subarray(0, n), parent: column.parent.subarray(0, column.dictSize),
  };
}

/**
 * The hierarchy of a catalog version of `docCount` docs from its {@link HierarchyParts}, checked (a
 * parent's id is below its children's, every code and doc in range) so that a damaged file is refused,
 * not searched: throws `RangeError` naming what is wrong.
 */
export function hierarchyFromParts(parts: HierarchyParts, docCount: number): HierarchyTree {
  const { values, offsets, codes, valueOffsets, valueDocs, deepest, parent } = parts;
  const nodes = values.length;
  const fail = (what: string): never => { throw new RangeError(`hierarchy column: ${what}`); };
  if (offsets.length !== docCount + 1 || deepest.length !== docCount || parent.length !== nodes || valueOffsets.length !== nodes + 1) fail('array lengths');
  if (offsets[0] !== 0 || offsets[docCount] !== codes.length || valueOffsets[0] !== 0 || valueOffsets[nodes] !== valueDocs.length) fail('offsets');
  for (let x = 0; x < nodes; x++) if (parent[x]! < -1 || parent[x]! >= x) fail(`parent of node ${x}`);
  for (let d = 0; d < docCount; d++) if (offsets[d + 1]! < offsets[d]! || deepest[d]! < -2 || deepest[d]! >= nodes) fail(`doc ${d}`);
  for (let x = 0; x < nodes; x++) if (valueOffsets[x + 1]! < valueOffsets[x]!) fail(`docs of node ${x}`);
  if (codes.some((x) => x >= nodes)) fail('codes');
  if (valueDocs.some((d) => d >= docCount)) fail('docs');
  const builder = TreeBuilder.ofNodes(parent, values, nodes);
  return treeOf(builder, { dictSize: nodes, offsets, codes, valueOffsets, valueDocs, deepest, parent });
}

/** The fields hierarchy `setting` reads its paths from. */
export function hierarchyFields(setting: HierarchySetting): readonly string[] {
  return 'fields' in setting ? setting.fields : [setting.field];
}

const derived = new WeakMap<CatalogState, Map<string, { setting: HierarchySetting; tree: HierarchyTree }>>();

/** The key a hierarchy setting is kept under (a changed setting is another hierarchy). */
function keyOf(setting: HierarchySetting): string {
  return JSON.stringify(setting);
}

/** The hierarchies derived on `state`, with their settings. */
export function derivedHierarchies(state: CatalogState): readonly { setting: HierarchySetting; tree: HierarchyTree }[] {
  return [...(derived.get(state)?.values() ?? [])];
}

/** Keeps `tree` as hierarchy `setting` of `state` (a carried or pre-derived one). */
export function keepHierarchy(state: CatalogState, setting: HierarchySetting, tree: HierarchyTree): void {
  let perSetting = derived.get(state);
  if (!perSetting) derived.set(state, (perSetting = new Map()));
  perSetting.set(keyOf(setting), { setting, tree });
}

/** Derives hierarchy `setting` of `state` in steps, unless the version has it (in the background, after a restart). */
export function* ensureHierarchySteps(state: CatalogState, setting: HierarchySetting): Steps<void> {
  if (derived.get(state)?.has(keyOf(setting))) return;
  const tree = yield* buildHierarchySteps(state, setting);
  // A search may have derived it in between: the same structure, kept once.
  if (!derived.get(state)?.has(keyOf(setting))) keepHierarchy(state, setting, tree);
}

/**
 * The hierarchy `setting` of catalog version `state`: the one carried from the version before or
 * derived before it was published (derived-carry.ts), else built now, on first use, and kept with the
 * version (keyed by the setting itself, so a changed setting builds anew).
 */
export function hierarchyOf(state: CatalogState, setting: HierarchySetting): HierarchyTree {
  const kept = derived.get(state)?.get(keyOf(setting));
  if (kept) return kept.tree;
  const tree = buildHierarchy(state, setting);
  keepHierarchy(state, setting, tree);
  return tree;
}
