/**
 * The route table: a switch on the first path segment and fixed segment counts, no regex scan over a
 * list. Path parameters are percent-decoded.
 * @module
 */
import type { Handler, Route } from './context.js';
import type { ErrorShape } from './errors.js';
import { HttpError } from './errors.js';
import { dashboardAsset, dashboardPage } from './dashboard.js';
import * as h from './handlers.js';
import { RECOMMEND_METHODS } from './schemas.js';

/** Per-route options beyond the common ones. */
interface RouteOptions {
  /** Subject to `handlerTimeoutMs` (default true). */
  timed?: boolean;
  /**
   * A GET that changes state (the spec's coupon call): HEAD is not implied, so a HEAD request (link
   * checkers, prefetchers) is answered 405 and changes nothing.
   */
  getChangesState?: boolean;
}

function route(template: string, methods: readonly string[], shape: ErrorShape, cors: boolean, handler: Handler, options: RouteOptions = {}): Route {
  const allowsHead = methods.includes('GET') && !options.getChangesState;
  const allow = [...methods, ...(allowsHead ? ['HEAD'] : []), 'OPTIONS'].join(', ');
  return { template, methods, allow, allowsHead, shape, cors, timed: options.timed ?? true, handler };
}

/** Every route of the surface, by a stable name (used by the OpenAPI builder and the tests). */
export const routes = {
  search: route('/v1.4/search', ['POST'], 'envelope', true, h.search),
  bundle: route('/1.0/ClientRecom/{website_id}/bundle', ['POST'], 'envelope', true, h.bundle),
  unknownMethod: route('/1.0/ClientRecom/{website_id}/{method}', ['GET'], 'envelope', true, h.unknownMethod),
  purchases: route('/3.0/events/purchases', ['POST'], 'problem', false, h.events('purchases')),
  views: route('/3.0/events/views', ['POST'], 'problem', false, h.events('views')),
  coupon: route('/b2b/coupon/mark_as_used', ['GET'], 'envelope', true, h.markCouponUsed, { getChangesState: true }),
  products: route('/admin/v1/websites/{websiteId}/products', ['PUT', 'PATCH'], 'problem', false, h.products, { timed: false }),
  product: route('/admin/v1/websites/{websiteId}/products/{refId}', ['GET', 'DELETE'], 'problem', false, h.product),
  coupons: route('/admin/v1/websites/{websiteId}/coupons', ['POST'], 'problem', false, h.issueCoupons),
  stats: route('/admin/v1/websites/{websiteId}/stats', ['GET'], 'problem', false, h.stats),
  keys: route('/admin/v1/websites/{websiteId}/keys', ['GET', 'POST'], 'problem', false, h.searchKeys),
  key: route('/admin/v1/websites/{websiteId}/keys/{key}', ['DELETE'], 'problem', false, h.revokeSearchKey),
  attribution: route('/admin/v1/websites/{websiteId}/reports/attribution', ['GET'], 'problem', false, h.attribution),
  searchReport: route('/admin/v1/websites/{websiteId}/reports/searches', ['GET'], 'problem', false, h.searchReport),
  settings: route('/admin/v1/websites/{websiteId}/settings', ['GET', 'PUT', 'PATCH'], 'problem', false, h.settings),
  healthz: route('/healthz', ['GET'], 'envelope', false, h.healthz),
  readyz: route('/readyz', ['GET'], 'envelope', false, h.readyz),
  metrics: route('/metrics', ['GET'], 'envelope', false, h.metrics),
  openapi: route('/openapi.json', ['GET'], 'envelope', false, h.openapi),
  dashboard: route('/', ['GET'], 'envelope', false, dashboardPage),
  dashboardAsset: route('/dashboard/{file}', ['GET'], 'envelope', false, dashboardAsset),
} as const;

/** The recommendation routes, one per method segment, keyed by the lowercased segment (matching is case-insensitive, as in the engine). */
export const recommendRoutes: ReadonlyMap<string, Route> = new Map(
  RECOMMEND_METHODS.map((m) => [m.toLowerCase(), route(`/1.0/ClientRecom/{website_id}/${m}`, ['GET'], 'envelope', true, h.recommend(m))]),
);

/** The pseudo-route of paths that match nothing (metrics label `unmatched`). */
export const unmatchedRoute: Route = route('unmatched', [], 'envelope', false, async () => {
  throw new HttpError(404, 'no such path');
});

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, `path segment "${segment}" is not valid percent-encoding`);
  }
}

/** A matched route with its decoded path parameters. */
export interface RouteMatch {
  route: Route;
  params: string[];
}

/** Finds the route of a path (without prefix and query), or undefined. Throws 400 on bad percent-encoding. */
export function matchRoute(path: string): RouteMatch | undefined {
  const s = path.split('/');
  const n = s.length;
  if (s[0] !== '') return undefined;
  switch (s[1]) {
    case 'v1.4':
      return n === 3 && s[2] === 'search' ? { route: routes.search, params: [] } : undefined;
    case '1.0': {
      if (n !== 5 || s[2] !== 'ClientRecom' || s[3] === '' || s[4] === '') return undefined;
      const websiteId = decode(s[3]!);
      if (s[4] === 'bundle') return { route: routes.bundle, params: [websiteId] };
      const known = recommendRoutes.get(s[4]!.toLowerCase());
      return known ? { route: known, params: [websiteId] } : { route: routes.unknownMethod, params: [websiteId, decode(s[4]!)] };
    }
    case '3.0':
      if (n !== 4 || s[2] !== 'events') return undefined;
      if (s[3] === 'purchases') return { route: routes.purchases, params: [] };
      if (s[3] === 'views') return { route: routes.views, params: [] };
      return undefined;
    case 'b2b':
      return n === 4 && s[2] === 'coupon' && s[3] === 'mark_as_used' ? { route: routes.coupon, params: [] } : undefined;
    case 'admin': {
      if (n < 6 || s[2] !== 'v1' || s[3] !== 'websites' || s[4] === '') return undefined;
      const websiteId = decode(s[4]!);
      if (n === 6) {
        switch (s[5]) {
          case 'products': return { route: routes.products, params: [websiteId] };
          case 'coupons': return { route: routes.coupons, params: [websiteId] };
          case 'stats': return { route: routes.stats, params: [websiteId] };
          case 'settings': return { route: routes.settings, params: [websiteId] };
          case 'keys': return { route: routes.keys, params: [websiteId] };
          default: return undefined;
        }
      }
      if (n === 7 && s[5] === 'products' && s[6] !== '') return { route: routes.product, params: [websiteId, decode(s[6]!)] };
      if (n === 7 && s[5] === 'keys' && s[6] !== '') return { route: routes.key, params: [websiteId, decode(s[6]!)] };
      if (n === 7 && s[5] === 'reports' && s[6] === 'attribution') return { route: routes.attribution, params: [websiteId] };
      if (n === 7 && s[5] === 'reports' && s[6] === 'searches') return { route: routes.searchReport, params: [websiteId] };
      return undefined;
    }
    case 'healthz': return n === 2 ? { route: routes.healthz, params: [] } : undefined;
    case 'readyz': return n === 2 ? { route: routes.readyz, params: [] } : undefined;
    case 'metrics': return n === 2 ? { route: routes.metrics, params: [] } : undefined;
    case 'openapi.json': return n === 2 ? { route: routes.openapi, params: [] } : undefined;
    case '': return n === 2 ? { route: routes.dashboard, params: [] } : undefined;
    case 'dashboard': return n === 3 && s[2] !== '' ? { route: routes.dashboardAsset, params: [decode(s[2]!)] } : undefined;
    default: return undefined;
  }
}
