/**
 * The built-in dashboard: `GET /` serves the page built by `pnpm run build` (esbuild bundles
 * `packages/http-adapter/dashboard/` into `dist/dashboard/`), `GET /dashboard/<file>` its assets, and
 * `GET /dashboard/config.json` what the page needs to start: the websites' public identifiers (website
 * id and client shortcode, which storefront calls carry anyway), the facet fields to show, the
 * recommendation methods, and — only when the server was given one, as the demo does — a search key
 * to prefill. The page calls nothing but the public HTTP API; the admin token for the reports is typed
 * by the user and never served. Files are read once and kept in memory; nothing is fetched from
 * elsewhere, so the page works offline.
 * @module
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_FIELD_ROLES, type Engine } from '@aisle/engine';
import type { Handler } from './context.js';
import { HttpError } from './errors.js';
import { JSON_TYPE, send } from './reply.js';
import { RECOMMEND_METHODS } from './schemas.js';

/** Options of the dashboard (`ListenerOptions.dashboard`). */
export interface DashboardOptions {
  /** Directory of the built assets (default: `dist/dashboard` of this package). */
  assetsDir?: string;
  /** A search key per website id to prefill in the page (the demo passes its own). */
  searchKeys?: Readonly<Record<string, string>>;
}

/** Where `pnpm run build` writes the assets; the same directory from `src/` (tests) and `dist/`. */
export const DEFAULT_DASHBOARD_DIR = fileURLToPath(new URL('../dist/dashboard/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json; charset=utf-8',
};

/** Asset names: one path segment of safe characters (no traversal). */
const ASSET_NAME = /^[\w-]+(\.[\w-]+)*$/;

/** Security headers of every dashboard answer: no framing, no inline or foreign scripts. */
const PAGE_HEADERS = {
  'cache-control': 'no-cache',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'self'; img-src 'self' data: https:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
};

/** Reads and caches the dashboard's files. */
export class DashboardAssets {
  private readonly files = new Map<string, Promise<Buffer>>();

  constructor(private readonly dir: string) {}

  /** The file's bytes; 404 when it does not exist (503 naming the build command when nothing was built). */
  async read(name: string): Promise<Buffer> {
    if (!ASSET_NAME.test(name)) throw new HttpError('DASHBOARD_FILE_NOT_FOUND', { name });
    let file = this.files.get(name);
    if (file === undefined) {
      file = readFile(path.join(this.dir, name));
      this.files.set(name, file);
      // A failed read is not kept: the file may be built later.
      file.catch(() => this.files.delete(name));
    }
    try {
      return await file;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      if (name === 'index.html') throw new HttpError('DASHBOARD_NOT_BUILT', { path: path.join(this.dir, name) });
      throw new HttpError('DASHBOARD_FILE_NOT_FOUND', { name });
    }
  }
}

/** Content type of an asset by its extension. */
export function contentTypeOf(name: string): string {
  return CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream';
}

/** What `GET /dashboard/config.json` answers. */
export function dashboardConfig(engine: Pick<Engine, 'websites'>, options: DashboardOptions): Record<string, unknown> {
  return {
    websites: engine.websites().map((w) => {
      const roles = w.settings?.fieldRoles;
      const category = roles?.category ?? DEFAULT_FIELD_ROLES.category;
      const site: Record<string, unknown> = {
        websiteId: w.websiteId,
        client: w.client,
        // The website's field roles (settings.fieldRoles; a category path facets on its root).
        facets: [roles?.brand ?? DEFAULT_FIELD_ROLES.brand, Array.isArray(category) ? category[0] : category],
        numericFields: [roles?.price ?? DEFAULT_FIELD_ROLES.price],
      };
      const key = options.searchKeys?.[w.websiteId];
      if (key !== undefined) site.searchKey = key;
      return site;
    }),
    recommendMethods: RECOMMEND_METHODS,
  };
}

/** `GET /`: the page. */
export const dashboardPage: Handler = async (ctx, state) => {
  if (!state.dashboard) throw new HttpError('DASHBOARD_DISABLED', {});
  const body = await state.dashboard.assets.read('index.html');
  sendBytes(ctx, state, 'index.html', body);
};

/** Assets the build also writes gzipped (`<name>.gz`). */
const PRECOMPRESSED = new Set(['app.js', 'app.css']);

/** True when the request accepts gzip (`Accept-Encoding: gzip`, not refused with `q=0`). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return (coding === 'gzip' || coding === '*') && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/** `GET /dashboard/{file}`: an asset (gzipped when the build wrote it so and the browser accepts it), or `config.json`. */
export const dashboardAsset: Handler = async (ctx, state) => {
  if (!state.dashboard) throw new HttpError('DASHBOARD_DISABLED', {});
  const name = ctx.params[0]!;
  if (name === 'config.json') {
    send(ctx, state, 200, JSON_TYPE, JSON.stringify(dashboardConfig(state.engine, state.dashboard.options)), { 'cache-control': 'no-store' });
    return;
  }
  if (PRECOMPRESSED.has(name) && acceptsGzip(ctx.req.headers['accept-encoding'])) {
    // A build older than the precompressed copies has none: the plain file is served instead.
    const body = await state.dashboard.assets.read(`${name}.gz`).catch((err: unknown) => {
      if (err instanceof HttpError && err.code === 'DASHBOARD_FILE_NOT_FOUND') return undefined;
      throw err;
    });
    if (body !== undefined) {
      send(ctx, state, 200, contentTypeOf(name), body, { ...PAGE_HEADERS, 'content-encoding': 'gzip', vary: 'Accept-Encoding' });
      return;
    }
  }
  sendBytes(ctx, state, name, await state.dashboard.assets.read(name));
};

function sendBytes(ctx: Parameters<Handler>[0], state: Parameters<Handler>[1], name: string, body: Buffer): void {
  send(ctx, state, 200, contentTypeOf(name), body, { ...PAGE_HEADERS, ...(PRECOMPRESSED.has(name) ? { vary: 'Accept-Encoding' } : {}) });
}
