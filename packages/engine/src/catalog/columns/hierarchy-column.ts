/**
 * A hierarchy's tree and its node column, derived from a catalog version on first use (like the sort
 * ranks and numeric orders of text-column-lookups.ts): the structure hierarchical facets count on and
 * hierarchy scopes filter by (`settings.hierarchies`, docs/http-api.md, "Hierarchical facets").
 *
 * The paths the products hold, in any of the three declared forms (one path string split by a
 * separator, one field per level, an array of levels), are interned into a tree of nodes; each doc
 * then gets, as the codes of a multi-valued text column, the node of every path prefix it has — its
 * category and every ancestor of it, each once. So:
 * - "at or below path P" is "has P's node": a value-list condition over this column (one posting list
 *   per node, so a subtree is one list, whatever its size);
 * - a node's count is its code's count, exact also for a product with several paths in one subtree
 *   (it holds each ancestor once), and the very facet counting loops of flat fields count it.
 * The column lives on SharedArrayBuffers and is carried by the search plan to the pool's workers.
 * Pure functions of an immutable catalog version, computed at most once per version and hierarchy.
 * @module
 */
import type { CatalogState, MultiValuedColumn, TextColumn } from '../catalog-index.js';
import type { HierarchySetting } from '../../contract/settings-schema.js';
import { codeAt, codeCount } from './text-column.js';
import { sharedArray } from './shared-arrays.js';

/** How paths are written in requests and responses, whatever the form the products hold them in. */
export const PATH_SEPARATOR = ' > ';

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
  /** Per node, its own level's value. */
  value: string[];
  /** Per node, its parent (-1: a top-level node). */
  parent: Int32Array;
  /** The top-level nodes, and per node its children (insertion order). */
  roots: number[];
  children: number[][];
  /** The node of a path (levels joined by {@link PATH_SEPARATOR}), if some product has it. */
  nodeOfPath: Map<string, number>;
}

/** A path string split into levels: the separator splits, each level is trimmed, empty levels are dropped. */
export function splitPath(path: string, separator: string): string[] {
  return path.split(separator).map((level) => level.trim()).filter((level) => level.length > 0);
}

/** Level dictionaries up to this size get a dense child table per node (at most 16 KiB each). */
const DENSE_CHILD_TABLE = 4096;

/** Interns paths into a tree, node by node. */
class TreeBuilder {
  readonly value: string[] = [];
  readonly parent: number[] = [];
  readonly depth: number[] = [];
  readonly roots: number[] = [];
  readonly children: number[][] = [];
  private readonly rootByValue = new Map<string, number>();
  private readonly childByValue: Map<string, number>[] = [];

  /** The node of `levels` (interned with its ancestors); -1 for an empty path. */
  nodeOf(levels: readonly string[]): number {
    return this.nodeOfFrom(-1, levels);
  }

  /** The node of `levels` below `from` (-1: from the top). */
  private nodeOfFrom(from: number, levels: readonly string[]): number {
    let node = from;
    for (const level of levels) {
      const siblings = node < 0 ? this.rootByValue : this.childByValue[node]!;
      let next = siblings.get(level);
      if (next === undefined) {
        next = this.value.length;
        this.value.push(level);
        this.parent.push(node);
        this.depth.push(node < 0 ? 0 : this.depth[node]! + 1);
        this.children.push([]);
        this.childByValue.push(new Map());
        siblings.set(level, next);
        (node < 0 ? this.roots : this.children[node]!).push(next);
      }
      node = next;
    }
    return node;
  }

  // Per parent node (+1: -1 is the top), per dictionary code of a level field, the child it leads to:
  // a million docs sharing a few hundred paths walk the tree by number, not by string. A small
  // dictionary gets a table per node (one read per level), a large one a map.
  private readonly childByCode: (Int32Array | Map<number, number>)[] = [];

  /**
   * The child of `node` (-1: the top) whose level is the value `code` has in `dictionary` (an empty
   * level: `node` itself); `dictSize`: the dictionary's size.
   */
  childOf(node: number, code: number, dictionary: { at(code: number): string }, dictSize: number): number {
    let byCode = this.childByCode[node + 1];
    if (!byCode) this.childByCode[node + 1] = byCode = dictSize <= DENSE_CHILD_TABLE ? new Int32Array(dictSize).fill(-2) : new Map();
    let child = byCode instanceof Int32Array ? byCode[code]! : byCode.get(code) ?? -2;
    if (child === -2) {
      const level = dictionary.at(code).trim();
      child = level.length === 0 ? node : this.childOfValue(node, level);
      if (byCode instanceof Int32Array) byCode[code] = child;
      else byCode.set(code, child);
    }
    return child;
  }

  private childOfValue(node: number, level: string): number {
    return this.nodeOfFrom(node, [level]);
  }

  pathOf(node: number): string {
    const levels: string[] = [];
    for (let n = node; n >= 0; n = this.parent[n]!) levels.push(this.value[n]!);
    return levels.reverse().join(PATH_SEPARATOR);
  }
}

/**
 * Per doc its deepest nodes: `single[d]` the one node of a doc with one path (-1: none, -2: several,
 * listed in `several`).
 */
interface DeepestNodes {
  single: Int32Array;
  several: Map<number, number[]>;
}

/** The per-doc deepest nodes of hierarchy `setting` on `state`, interning its paths into `tree`. */
function deepestNodes(state: CatalogState, setting: HierarchySetting, tree: TreeBuilder): DeepestNodes {
  const n = state.index.docCount;
  const single = new Int32Array(n).fill(-1);
  const several = new Map<number, number[]>();
  const columnOf = (name: string) => {
    const fid = state.fieldByName.get(name);
    const text = fid === undefined ? undefined : state.index.fields[fid]!.text;
    return text && { text, dictionary: state.dictionaries[fid!]! };
  };
  const set = (d: number, nodes: number[]): void => {
    const distinct = [...new Set(nodes.filter((x) => x >= 0))];
    if (distinct.length === 1) single[d] = distinct[0]!;
    else if (distinct.length > 1) { single[d] = -2; several.set(d, distinct); }
  };
  if ('fields' in setting) {
    const levels = setting.fields.map(columnOf);
    for (let d = 0; d < n; d++) {
      // The path is the levels' values up to the first level without one (a level's first value).
      let node = -1;
      for (const level of levels) {
        if (!level || codeCount(level.text, d) === 0) break;
        node = tree.childOf(node, codeAt(level.text, d, 0), level.dictionary, level.text.dictSize);
      }
      single[d] = node;
    }
    return { single, several };
  }
  const source = columnOf(setting.field);
  if (!source) return { single, several };
  const { text, dictionary } = source;
  if (setting.separator !== undefined) {
    // One path per value: each distinct value is split once.
    const nodeOfCode = new Int32Array(text.dictSize).fill(-3);
    const nodeOfValue = (code: number): number => {
      if (nodeOfCode[code] === -3) nodeOfCode[code] = tree.nodeOf(splitPath(dictionary.at(code), setting.separator!));
      return nodeOfCode[code]!;
    };
    for (let d = 0; d < n; d++) {
      const k = codeCount(text, d);
      if (k === 1) single[d] = nodeOfValue(codeAt(text, d, 0));
      else if (k > 1) set(d, Array.from({ length: k }, (_, i) => nodeOfValue(codeAt(text, d, i))));
    }
    return { single, several };
  }
  // An array of levels: the doc's values in the order given. A text column keeps a doc's distinct
  // values in order, so a path naming a level twice ("Leggings > Leggings") is read from the store.
  const differs = state.store.differsFromCodes(setting.field);
  const read = state.store.fieldReader(setting.field);
  for (let d = 0; d < n; d++) {
    const k = codeCount(text, d);
    if (k === 0) continue;
    if (differs(d)) {
      const value = read(d);
      const path = (Array.isArray(value) ? value : [value]).filter((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean').map((v) => String(v).trim());
      set(d, [tree.nodeOf(path.filter((l) => l.length > 0))]);
    } else {
      let node = -1;
      for (let i = 0; i < k; i++) node = tree.childOf(node, codeAt(text, d, i), dictionary, text.dictSize);
      single[d] = node;
    }
  }
  return { single, several };
}

/** Builds the tree and node column of hierarchy `setting` on `state` (see the module doc). */
export function buildHierarchy(state: CatalogState, setting: HierarchySetting): HierarchyTree {
  const tree = new TreeBuilder();
  const { single, several } = deepestNodes(state, setting, tree);
  const n = single.length;
  const nodeCount = tree.value.length;
  const depth = tree.depth;
  // Per doc with several paths: the union of their ancestor chains.
  const chains = new Map<number, number[]>();
  for (const [d, nodes] of several) {
    const all = new Set<number>();
    for (const deep of nodes) for (let x = deep; x >= 0 && !all.has(x); x = tree.parent[x]!) all.add(x);
    chains.set(d, [...all].sort((a, b) => depth[a]! - depth[b]! || a - b));
  }
  const offsets = sharedArray(Uint32Array, n + 1);
  for (let d = 0; d < n; d++) {
    const deep = single[d]!;
    offsets[d + 1] = offsets[d]! + (deep >= 0 ? depth[deep]! + 1 : deep === -2 ? chains.get(d)!.length : 0);
  }
  const codes = sharedArray(Uint32Array, offsets[n]!);
  const perNode = new Uint32Array(nodeCount + 1);
  for (let d = 0; d < n; d++) {
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
  const valueOffsets = sharedArray(Uint32Array, nodeCount + 1);
  for (let x = 0; x < nodeCount; x++) valueOffsets[x + 1] = valueOffsets[x]! + perNode[x + 1]!;
  const valueDocs = sharedArray(Uint32Array, codes.length);
  const fill = Uint32Array.from(valueOffsets.subarray(0, nodeCount));
  for (let d = 0; d < n; d++) for (let j = offsets[d]!, end = offsets[d + 1]!; j < end; j++) valueDocs[fill[codes[j]!]++] = d;
  const nodeOfPath = new Map<string, number>();
  for (let x = 0; x < nodeCount; x++) nodeOfPath.set(tree.pathOf(x), x);
  const deepest = sharedArray(Int32Array, n);
  deepest.set(single);
  const parent = sharedArray(Int32Array, nodeCount);
  parent.set(tree.parent);
  return {
    column: { dictSize: nodeCount, offsets, codes, valueOffsets, valueDocs, deepest, parent },
    value: tree.value, parent, roots: tree.roots, children: tree.children, nodeOfPath,
  };
}

const built = new WeakMap<CatalogState, Map<string, HierarchyTree>>();

/**
 * The hierarchy `setting` of catalog version `state`, built on first use and kept with the version
 * (keyed by the setting itself, so a changed setting builds anew).
 */
export function hierarchyOf(state: CatalogState, setting: HierarchySetting): HierarchyTree {
  let perSetting = built.get(state);
  if (!perSetting) built.set(state, (perSetting = new Map()));
  const key = JSON.stringify(setting);
  let tree = perSetting.get(key);
  if (!tree) {
    tree = buildHierarchy(state, setting);
    perSetting.set(key, tree);
  }
  return tree;
}
