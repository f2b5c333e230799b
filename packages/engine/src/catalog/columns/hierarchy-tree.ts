/**
 * The nodes of a hierarchy's tree, interned from paths one level at a time, shared by the versions of
 * a catalog that extend one another (hierarchy-column.ts).
 *
 * Nodes are only ever added, numbered in first-seen order: a version made by appending products sees
 * the nodes of the version before with the same ids, then those of its new docs — the numbering a
 * one-go build of the same docs gives. So one builder serves a chain of versions, each reading the
 * nodes below its own count ({@link NodeTable}), and extending a version costs its new docs, not a
 * copy of the tree. Only the latest version made from a builder extends it in place (as `extendShared`
 * extends only the latest view of a buffer); another one gets a copy of its own nodes first.
 * @module
 */

/** How paths are written in requests and responses, whatever the form the products hold them in. */
export const PATH_SEPARATOR = ' > ';

/** Level dictionaries up to this size get a dense child table per node (at most 16 KiB each). */
const DENSE_CHILD_TABLE = 4096;

/** A level's values: a field's dictionary (code → value) and its size. */
export interface LevelSource {
  /** The field, so that the codes of different level fields never share a cache. */
  field: number;
  dictionary: { at(code: number): string };
  dictSize: number;
}

/** The nodes below `count` of a {@link TreeBuilder}: what one catalog version has. */
export interface NodeTable {
  /** Per node, its own level's value (read below the version's node count only). */
  readonly value: readonly string[];
  /** The node of a path (levels joined by {@link PATH_SEPARATOR}) among the first `count` nodes. */
  nodeOf(path: string, count: number): number | undefined;
  /** The children of `node` (-1: the top-level nodes) among the first `count`, ascending (first seen first). */
  childrenOf(node: number, count: number): readonly number[];
}

/** The prefix of ascending `ids` below `count`. */
function below(ids: readonly number[], count: number): readonly number[] {
  if (ids.length === 0 || ids[ids.length - 1]! < count) return ids;
  let end = ids.length;
  while (end > 0 && ids[end - 1]! >= count) end--;
  return ids.slice(0, end);
}

/** Interns paths into a tree, node by node (see the module doc). */
export class TreeBuilder implements NodeTable {
  readonly value: string[] = [];
  readonly parent: number[] = [];
  readonly depth: number[] = [];
  private readonly roots: number[] = [];
  private readonly children: number[][] = [];
  private readonly rootByValue = new Map<string, number>();
  private readonly childByValue: Map<string, number>[] = [];
  // Path → its last node, and every node of a path two nodes share (levels holding the separator).
  private readonly byPath = new Map<string, number>();
  private readonly samePath = new Map<string, number[]>();
  // Per level field, per node + 2 (-1: the top; -2: a whole path split by a separator), per code of
  // the field's dictionary, the node it leads to: a million docs sharing a few hundred paths walk the
  // tree by number, not by string. A small dictionary gets a table per node, a large one a map.
  private readonly byCode = new Map<number, (Int32Array | Map<number, number> | undefined)[]>();
  /** The version allowed to add nodes: the latest one made from this builder (see the module doc). */
  owner: object | undefined;

  /** A builder holding the first `count` nodes of `from` (its code caches start empty). */
  static copyOf(from: TreeBuilder, count: number): TreeBuilder {
    return TreeBuilder.ofNodes(from.parent, from.value, count);
  }

  /**
   * A builder holding the nodes `0 … count - 1` given by their parents and values, as another builder
   * numbered them (a parent's id below its children's; a snapshot keeps them: catalog/durability/snapshot.ts).
   */
  static ofNodes(parent: ArrayLike<number>, value: readonly string[], count: number): TreeBuilder {
    const out = new TreeBuilder();
    for (let x = 0; x < count; x++) out.add(parent[x]!, value[x]!);
    return out;
  }

  get size(): number {
    return this.value.length;
  }

  /** The node of `levels` (interned with its ancestors); -1 for an empty path. */
  nodeOfLevels(levels: readonly string[]): number {
    let node = -1;
    for (const level of levels) node = this.childOfValue(node, level);
    return node;
  }

  /** The child of `node` (-1: the top) whose level is `level`, added if new. */
  private childOfValue(node: number, level: string): number {
    const siblings = node < 0 ? this.rootByValue : this.childByValue[node]!;
    return siblings.get(level) ?? this.add(node, level);
  }

  private add(node: number, level: string): number {
    const x = this.value.length;
    this.value.push(level);
    this.parent.push(node);
    this.depth.push(node < 0 ? 0 : this.depth[node]! + 1);
    this.children.push([]);
    this.childByValue.push(new Map());
    (node < 0 ? this.rootByValue : this.childByValue[node]!).set(level, x);
    (node < 0 ? this.roots : this.children[node]!).push(x);
    const path = this.pathOf(x);
    const before = this.byPath.get(path);
    if (before !== undefined) {
      const all = this.samePath.get(path) ?? [before];
      all.push(x);
      this.samePath.set(path, all);
    }
    this.byPath.set(path, x);
    return x;
  }

  /**
   * The node `code`'s value of `source` leads to from `node` (-1: the top), `step` computing it once
   * per node and code.
   */
  private cached(source: LevelSource, node: number, code: number, step: (value: string) => number): number {
    let perNode = this.byCode.get(source.field);
    if (!perNode) this.byCode.set(source.field, (perNode = []));
    let table = perNode[node + 2];
    if (table instanceof Int32Array && code >= table.length) {
      // The dictionary grew since (an append): a wider table while it stays small, else a map.
      const wider: Int32Array | Map<number, number> = source.dictSize <= DENSE_CHILD_TABLE ? new Int32Array(source.dictSize).fill(-2) : new Map();
      table.forEach((x, c) => { if (x !== -2) wider instanceof Int32Array ? (wider[c] = x) : wider.set(c, x); });
      table = perNode[node + 2] = wider;
    }
    if (!table) table = perNode[node + 2] = source.dictSize <= DENSE_CHILD_TABLE ? new Int32Array(source.dictSize).fill(-2) : new Map();
    let x = table instanceof Int32Array ? table[code]! : table.get(code) ?? -2;
    if (x === -2) {
      x = step(source.dictionary.at(code));
      if (table instanceof Int32Array) table[code] = x;
      else table.set(code, x);
    }
    return x;
  }

  /** What {@link cached} holds for `node` and `code` of `source`, -2 when nothing yet (nothing made). */
  private known(source: LevelSource, node: number, code: number): number {
    const table = this.byCode.get(source.field)?.[node + 2];
    if (table instanceof Int32Array) return code < table.length ? table[code]! : -2;
    return table?.get(code) ?? -2;
  }

  /** The child of `node` (-1: the top) whose level is `code`'s value (trimmed; an empty level: `node` itself). */
  childOf(node: number, code: number, source: LevelSource): number {
    // Known: no closure made (a build asks for the levels of every doc: 3M closures at 1M products,
    // garbage the replace's collections paid for).
    const known = this.known(source, node, code);
    if (known !== -2) return known;
    return this.cached(source, node, code, (value) => {
      const level = value.trim();
      return level.length === 0 ? node : this.childOfValue(node, level);
    });
  }

  /** The node of the path `code`'s value holds, split by `separator` (-1: an empty path). */
  nodeOfSplit(code: number, source: LevelSource, separator: string): number {
    return this.cached(source, -2, code, (value) => this.nodeOfLevels(splitPath(value, separator)));
  }

  /** The path of `node`, root first. */
  pathOf(node: number): string {
    const levels: string[] = [];
    for (let n = node; n >= 0; n = this.parent[n]!) levels.push(this.value[n]!);
    return levels.reverse().join(PATH_SEPARATOR);
  }

  nodeOf(path: string, count: number): number | undefined {
    const x = this.byPath.get(path);
    if (x === undefined || x < count) return x;
    const all = this.samePath.get(path);
    if (!all) return undefined;
    const kept = below(all, count);
    return kept.length > 0 ? kept[kept.length - 1] : undefined;
  }

  childrenOf(node: number, count: number): readonly number[] {
    return below(node < 0 ? this.roots : this.children[node]!, count);
  }
}

/** A path string split into levels: the separator splits, each level is trimmed, empty levels are dropped. */
export function splitPath(path: string, separator: string): string[] {
  return path.split(separator).map((level) => level.trim()).filter((level) => level.length > 0);
}
