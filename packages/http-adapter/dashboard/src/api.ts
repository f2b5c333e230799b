/**
 * What the page knows about the server and the calls it makes: only the public HTTP API, with the
 * search key and admin token the user typed.
 */

/** One website as `GET /dashboard/config.json` lists it. */
export interface SiteConfig {
  websiteId: string;
  client: string;
  facets: string[];
  numericFields: string[];
  searchKey?: string;
}

/** `GET /dashboard/config.json`. */
export interface DashboardConfig {
  websites: SiteConfig[];
  recommendMethods: string[];
}

/** The connection the user chose. */
export interface Connection {
  site: SiteConfig;
  searchKey: string;
  adminToken: string;
}

/** An answer that is not 2xx, with the server's message. */
export class ApiError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Fetches JSON; a non-2xx answer becomes an {@link ApiError} carrying the server's message. */
export async function getJson<T>(url: string, init: RequestInit = {}): Promise<T> {
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
    throw new ApiError(message, res.status);
  }
  return body as T;
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

/** An admin GET (`/admin/v1/websites/{site}/…`). */
export function admin<T>(conn: Connection, path: string): Promise<T> {
  return getJson(`/admin/v1/websites/${encodeURIComponent(conn.site.websiteId)}/${path}`, { headers: { authorization: `Bearer ${conn.adminToken}` } });
}

/** Escapes text for insertion into HTML. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
