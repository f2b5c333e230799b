/**
 * What the page knows about the server and the calls it makes: only the public HTTP API, with the
 * search key and admin token the user typed.
 */

/** One website as `GET /dashboard/config.json` lists it (docs/http-api.md, "The dashboard's configuration"). */
export interface SiteConfig {
  websiteId: string;
  client: string;
  facets: string[];
  numericFields: string[];
  /** The website's hierarchies (`settings.hierarchies`): a hierarchical menu each. */
  hierarchies: string[];
  /** The product fields an item is shown by (the website's field roles). */
  displayFields: { title: string; price: string; image: string };
  searchKey?: string;
  /** Customer ids to try the customer-based methods with (the demo's). */
  demoCustomers?: string[];
}

/** `GET /dashboard/config.json`. */
export interface DashboardConfig {
  websites: SiteConfig[];
  recommendMethods: string[];
  /** The methods whose only input is a customer id: called only once the user gave one. */
  customerMethods: string[];
}

/** The connection the user chose. */
export interface Connection {
  site: SiteConfig;
  searchKey: string;
  adminToken: string;
}

/** An answer that is not 2xx, with the server's message (and, for problem details, its messages by property path). */
export class ApiError extends Error {
  /** `problem`: the whole answer (problem details: also `records` for a catalog change). */
  constructor(message: string, readonly status: number, readonly errors?: Record<string, string[]>, readonly problem?: unknown) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Fetches JSON; a non-2xx answer becomes an {@link ApiError} carrying the server's message. */
export async function getJson<T>(url: string, init: RequestInit = {}): Promise<T> {
  return (await exchangeJson<T>(url, init)).body;
}

/** {@link getJson}, with the answer's headers (an `ETag`). */
async function exchangeJson<T>(url: string, init: RequestInit): Promise<{ body: T; headers: Headers }> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw new ApiError(`${res.status}: the answer is not JSON`, res.status);
  }
  if (!res.ok) {
    const b = body as { message?: string; errors?: Record<string, string[]> } | undefined;
    const message = b?.message ?? (b?.errors ? Object.values(b.errors).flat().join('; ') : `HTTP ${res.status}`);
    throw new ApiError(message, res.status, b?.errors, body);
  }
  return { body: body as T, headers: res.headers };
}

/** The recommendation answer (with aisle's slot data). */
export interface RecommendAnswer {
  payload: string[];
  slots?: { refId: string; tacticLabel: string; tacticId: string; retailMedia?: unknown; retailBoost?: unknown }[];
  recommenderId?: string;
}

/** `GET /1.0/ClientRecom/{site}/{method}` with the product as productRef and as the cart. */
export function recommend(site: SiteConfig, method: string, refId: string, customerId: string): Promise<RecommendAnswer> {
  const q = new URLSearchParams({ productRef: refId, 'items[0]': refId, count: '6' });
  if (customerId) q.set('customerId', customerId);
  return getJson(`/1.0/ClientRecom/${encodeURIComponent(site.websiteId)}/${method}?${q}`);
}

/** `POST /1.0/ClientRecom/{site}/bundle`. */
export function bundles(site: SiteConfig, refId: string): Promise<{ payload: string[][]; recommenderId?: string }> {
  return getJson(`/1.0/ClientRecom/${encodeURIComponent(site.websiteId)}/bundle`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ product_ref_ids: [refId], setCount: 3, count: 3 }),
  });
}

/** A product as search answers it: `refId` and whatever fields the catalog holds. */
export type ProductRecord = { refId: string } & Record<string, unknown>;

/**
 * `POST /v1.4/search` with the search key: the first `size` products of `q` within `scope`, and their total.
 * `distinct: false`: the catalog browser and the records by refId see every product, also on a website
 * whose `settings.distinct` groups variants (one result per style) for its shoppers.
 */
export async function searchProducts(conn: Connection, q: string, size: number, scope?: Record<string, unknown>): Promise<{ result: ProductRecord[]; total: number }> {
  const answer = await getJson<{ payload: { result: ProductRecord[]; total_results: number } }>('/v1.4/search', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${conn.searchKey}` },
    body: JSON.stringify({ website_id: conn.site.websiteId, client: conn.site.client, q, start: 0, size, ...(scope && { scope }), distinct: false }),
  });
  return { result: answer.payload.result, total: answer.payload.total_results };
}

/**
 * The catalog records of `refIds`, by refId, in one search with the search key (an empty query scoped to
 * the refIds: recommendation and bundle answers carry refIds only). RefIds the catalog no longer holds
 * are absent from the map.
 */
export async function productsByRef(conn: Connection, refIds: readonly string[]): Promise<Map<string, ProductRecord>> {
  const unique = [...new Set(refIds)];
  if (unique.length === 0) return new Map();
  const { result } = await searchProducts(conn, '', unique.length, { refId: unique });
  return new Map(result.map((p) => [p.refId, p]));
}

/** An admin GET (`/admin/v1/websites/{site}/…`). */
export function admin<T>(conn: Connection, path: string): Promise<T> {
  return adminSend(conn, 'GET', path);
}

type AdminMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** An admin call (`/admin/v1/websites/{site}/…`) with the admin token, with a JSON body unless `body` is undefined. */
export async function adminSend<T>(conn: Connection, method: AdminMethod, path: string, body?: unknown): Promise<T> {
  return (await adminExchange<T>(conn, method, path, body)).body;
}

/** {@link adminSend} with extra request headers (`If-Match`), answering the response's headers too (`ETag`). */
export function adminExchange<T>(conn: Connection, method: AdminMethod, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<{ body: T; headers: Headers }> {
  const headers: Record<string, string> = { ...extra, authorization: `Bearer ${conn.adminToken}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return exchangeJson(`/admin/v1/websites/${encodeURIComponent(conn.site.websiteId)}/${path}`, {
    method, headers, ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

/** A numeric value with two decimals (prices arrive as numbers or numeric strings); other values as given. */
export function formatNumber(value: unknown): string {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) ? n.toFixed(2) : String(value ?? '');
}

/** An image URL the page may load: https, or a path on this server (the page's CSP allows no other). */
export function imageUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return /^https:\/\//i.test(value) || /^\/(?!\/)/.test(value) ? value : undefined;
}

/** Escapes text for insertion into HTML. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
