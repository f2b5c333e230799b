/**
 * Loads the engine's modules by path: its sources when the bench itself runs from sources (tsx), its
 * build output otherwise. Deep paths reach internal hot functions (tokenizer, bitsets, …) that the
 * micro-benchmarks measure, and keep the bench independent of the engine's package entry point.
 * @module
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** True when this file runs as TypeScript source (`node --import tsx`). */
export const RUNNING_FROM_SOURCE = import.meta.url.endsWith('.ts');

/** The URL of an engine module, e.g. `catalog/tokenizer` or `index`. */
export function engineModuleUrl(modulePath: string): URL {
  return RUNNING_FROM_SOURCE
    ? new URL(`../../engine/src/${modulePath}.ts`, import.meta.url)
    : new URL(`../../engine/dist/${modulePath}.js`, import.meta.url);
}

/** True when the engine module exists (the engine is written in parallel; some parts may not yet). */
export function engineModuleExists(modulePath: string): boolean {
  return existsSync(fileURLToPath(engineModuleUrl(modulePath)));
}

/** Imports an engine module, typed by the caller (the bench declares the small shapes it uses). */
export async function importEngine<T>(modulePath: string): Promise<T> {
  return (await import(engineModuleUrl(modulePath).href)) as T;
}

/** Same, for the HTTP adapter package. */
export async function importAdapter<T>(modulePath: string): Promise<T> {
  const url = RUNNING_FROM_SOURCE
    ? new URL(`../../http-adapter/src/${modulePath}.ts`, import.meta.url)
    : new URL(`../../http-adapter/dist/${modulePath}.js`, import.meta.url);
  return (await import(url.href)) as T;
}

export function adapterModuleExists(modulePath: string): boolean {
  const url = RUNNING_FROM_SOURCE
    ? new URL(`../../http-adapter/src/${modulePath}.ts`, import.meta.url)
    : new URL(`../../http-adapter/dist/${modulePath}.js`, import.meta.url);
  return existsSync(fileURLToPath(url));
}
