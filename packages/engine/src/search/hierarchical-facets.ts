/**
 * Hierarchical facets (`hierarchical_facets` in the request): per named hierarchy, the top level and
 * the children of each node on the refined path (the paths of the hierarchy's scope condition), each
 * node with the products at or below it.
 *
 * Counted as aggregations over the hierarchy's node column (catalog/columns/hierarchy-column.ts: a
 * product holds the node of every prefix of its path, so a node's code count is its subtree's count),
 * with the hierarchy's own scope condition held back like a disjunctive facet's (plan-filters.ts): the
 * top level and the refined nodes' siblings are counted ignoring it, every other condition applies.
 * The children of the deepest refined node are counted over the results, and need nothing more: every
 * product at or below a listed path passes the held back condition. This module turns the merged counts
 * into the wire tree on the calling thread. Pure.
 * @module
 */
import { HIERARCHY_LIMITS } from '../contract/limits.js';
import { PATH_SEPARATOR, type HierarchyTree } from '../catalog/columns/hierarchy-column.js';
import type { HierarchyNode, ScopeCondition } from '../types.js';
import { isAtOrBelow, parseKeyCondition } from './conditions.js';

/** The paths a hierarchy's condition lists (normal form), when it is a list of paths. */
function pathsOf(condition: ScopeCondition | undefined): string[] {
  if (condition === undefined) return [];
  const parsed = parseKeyCondition(condition, true);
  return parsed.op === 'under' ? [...parsed.paths] : [];
}

/**
 * The refined paths of a hierarchy: those of the request's condition on it; under a search key forcing
 * the hierarchy (`forced`), those within the key's subtrees (a path outside them is not listed, not even
 * at 0), and when none is, the key's own paths (its subtree is what the shopper can open).
 */
export function refinedPaths(condition: ScopeCondition | undefined, forced?: ScopeCondition): string[] {
  const asked = pathsOf(condition);
  if (forced === undefined) return asked;
  const allowed = pathsOf(forced);
  const within = asked.filter((p) => allowed.some((a) => isAtOrBelow(p, a)));
  return within.length > 0 ? within : allowed;
}

/**
 * The wire tree of one hierarchy from its node counts: at each listed level the nodes with a count, or
 * on the refined path, by count descending then value, at most {@link HIERARCHY_LIMITS}.nodesPerLevel
 * (a refined node is listed even past them, or with no count left); the refined nodes carry their children.
 */
export function hierarchyPayload(tree: HierarchyTree, counts: Uint32Array, refined: readonly string[]): HierarchyNode[] {
  const onPath = new Set<number>();
  for (const path of refined) {
    for (let x = tree.nodeOf(path) ?? -1; x >= 0; x = tree.parent[x]!) onPath.add(x);
  }
  const level = (nodes: readonly number[], parentPath: string): HierarchyNode[] => {
    const listed = nodes.filter((x) => counts[x]! > 0 || onPath.has(x));
    listed.sort((a, b) => counts[b]! - counts[a]! || (tree.value[a]! < tree.value[b]! ? -1 : tree.value[a]! > tree.value[b]! ? 1 : 0));
    const kept = listed.filter((x, i) => i < HIERARCHY_LIMITS.nodesPerLevel || onPath.has(x));
    return kept.map((x) => {
      const path = parentPath === '' ? tree.value[x]! : parentPath + PATH_SEPARATOR + tree.value[x]!;
      const node: HierarchyNode = { value: tree.value[x]!, path, count: counts[x]! };
      if (onPath.has(x)) node.children = level(tree.childrenOf(x), path);
      return node;
    });
  };
  return level(tree.childrenOf(-1), '');
}
