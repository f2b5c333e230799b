/**
 * The engine's module graph as its sources declare it, and the two rules docs/architecture.md states
 * for it ("Rules the code keeps"): no import runs back up the layers, no import circle. Read with the
 * TypeScript compiler's parser (import and export declarations, dynamic `import()`), relative
 * specifiers only: packages are outside the graph. Test-only.
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One import of a module: the module imported (path relative to the source root) and whether only types are. */
export interface ModuleImport {
  target: string;
  typeOnly: boolean;
}

/** Per module (path relative to the source root, `/`-separated), its imports of other modules of the graph. */
export type ImportGraph = ReadonlyMap<string, readonly ModuleImport[]>;

/** Whether a file under the source root belongs to the shipped graph (tests and their helpers do not). */
function isShipped(relative: string): boolean {
  return relative.endsWith('.ts') && !relative.endsWith('.test.ts') && !relative.endsWith('.d.ts') && !relative.split('/').includes('__tests__');
}

function sourceFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).map((f) => f.split(path.sep).join('/')).filter(isShipped).sort();
}

/** The relative module specifiers of `text`, each with whether the declaration imports only types. */
function specifiersOf(fileName: string, text: string): { specifier: string; typeOnly: boolean }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: { specifier: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const namedTypesOnly = clause?.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings)
        && clause.name === undefined && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly);
      out.push({ specifier: node.moduleSpecifier.text, typeOnly: clause !== undefined && (clause.isTypeOnly || namedTypesOnly) });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const namedTypesOnly = node.exportClause !== undefined && ts.isNamedExports(node.exportClause)
        && node.exportClause.elements.length > 0 && node.exportClause.elements.every((e) => e.isTypeOnly);
      out.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly || namedTypesOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteral(arg)) out.push({ specifier: arg.text, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push({ specifier: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out.filter((s) => s.specifier.startsWith('.'));
}

/** The import graph of the shipped modules under `root` (a package's `src`). */
export function readImportGraph(root: string): ImportGraph {
  const graph = new Map<string, ModuleImport[]>();
  for (const file of sourceFiles(root)) {
    const imports = specifiersOf(file, readFileSync(path.join(root, file), 'utf8')).map(({ specifier, typeOnly }) => ({
      target: path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier.replace(/\.js$/, '.ts'))),
      typeOnly,
    }));
    graph.set(file, imports);
  }
  return graph;
}

/**
 * The layers of the engine, lowest first: a module may import its own layer and those below. A module's
 * layer is that of its top folder (or its own name at the root). Pure data; the order is the one
 * docs/architecture.md describes.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['util'],
  ['contract'],
  ['types.ts', 'errors.ts'],
  ['config.ts', 'background-failures.ts', 'readiness.ts', 'engine-api.ts'],
  ['catalog', 'store'],
  ['search', 'semantic', 'recommend', 'retail-media', 'keys', 'events', 'clicks', 'learning'],
  // Experiments validate variant settings as settings are validated (settings/website-settings.ts).
  ['settings', 'analytics', 'replication', 'demo', 'experiments'],
  // The engine's composition (engine.ts) and the start, shutdown and per-website parts it composes (engine/).
  ['engine.ts', 'engine'],
  ['index.ts', 'internal.ts'],
];

/** The layer of module `file` (an index into {@link LAYERS}), -1 when no layer names it. */
export function layerOf(file: string): number {
  const top = file.split('/')[0];
  return LAYERS.findIndex((layer) => layer.includes(top));
}

/** Every import of a module in a higher layer than its importer's, as `importer -> imported`. Pure. */
export function upImports(graph: ImportGraph): string[] {
  const out: string[] = [];
  for (const [file, imports] of graph) {
    for (const { target } of imports) if (layerOf(target) > layerOf(file)) out.push(`${file} -> ${target}`);
  }
  return out;
}

/**
 * The import circles of `graph`: its strongly connected components of more than one module (each
 * module of one reaches every other through imports), modules sorted. `typeOnly` imports count
 * unless `runtimeOnly`. Pure (Tarjan's algorithm).
 */
export function importCircles(graph: ImportGraph, runtimeOnly = false): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const edges = (file: string): string[] =>
    (graph.get(file) ?? []).filter((i) => graph.has(i.target) && !(runtimeOnly && i.typeOnly)).map((i) => i.target);
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges(v)) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) circles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return circles;
}

/** One shortest import path from `from` back to itself within a circle, for a readable failure. Pure. */
export function circlePath(graph: ImportGraph, circle: readonly string[], runtimeOnly = false): string[] {
  const members = new Set(circle);
  const from = circle[0];
  const previous = new Map<string, string>();
  const queue = [from];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const i of graph.get(v) ?? []) {
      if (!members.has(i.target) || (runtimeOnly && i.typeOnly) || previous.has(i.target)) continue;
      previous.set(i.target, v);
      if (i.target === from) {
        const pathBack = [from];
        for (let at = v; at !== from; at = previous.get(at)!) pathBack.unshift(at);
        return [from, ...pathBack.slice(0)];
      }
      queue.push(i.target);
    }
  }
  return [...circle];
}
