/**
 * Where a worker thread's script is, whether the engine runs built or from its TypeScript sources
 * (vitest, `node --import tsx`), and how to start a plain `Worker` on it in both cases.
 * @module
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** A worker script and the `execArgv` it needs. */
export interface WorkerFile {
  /** `file:` URL of the script (piscina takes `url.href` as its `filename`). */
  url: URL;
  /** `[]` for built code; `['--import', 'tsx']` for the `.ts` source. */
  execArgv: string[];
}

/**
 * The worker script `name` (without extension, e.g. `./search-worker`) beside the module at `baseUrl`
 * (its `import.meta.url`). Built code has `<name>.js` there; from sources only the `.ts` exists, and
 * the worker then needs tsx to load it.
 */
export function workerFile(baseUrl: string | URL, name: string): WorkerFile {
  const built = new URL(`${name}.js`, baseUrl);
  if (existsSync(fileURLToPath(built))) return { url: built, execArgv: [] };
  return { url: new URL(`${name}.ts`, baseUrl), execArgv: ['--import', 'tsx'] };
}

/**
 * Starts a `Worker` on {@link workerFile}`(baseUrl, name)`. Built: the `.js` directly. From sources,
 * `execArgv: ['--import', 'tsx']` is not enough for a plain Worker whose entry is the `.ts` file (on
 * Node 20 tsx does not register its hooks in worker threads; piscina gets away with it because its own
 * `.js` entry imports the task file later), so a small bootstrap registers tsx through its API
 * (`tsx/esm/api`, resolved from `baseUrl`) and then imports the `.ts` entry. A failure to load reaches
 * the Worker's `error` event either way.
 */
export function startWorker(baseUrl: string | URL, name: string, options: WorkerOptions = {}): Worker {
  const { url, execArgv } = workerFile(baseUrl, name);
  if (execArgv.length === 0) return new Worker(url, options);
  // `require.resolve` answers the `require` condition (index.cjs); the ESM build sits beside it.
  const api = createRequire(baseUrl).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs');
  const boot = `import(${JSON.stringify(pathToFileURL(api).href)})
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(boot, { ...options, eval: true, execArgv: [] });
}
