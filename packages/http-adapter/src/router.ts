/**
 * The route table, derived from the endpoint declarations (endpoints.ts): each declaration becomes a
 * {@link Route} whose operations carry their compiled serialisers, body validator and query decoder
 * and run their declared authentication, and a find-my-way radix tree matches paths to routes. Path parameters are
 * percent-decoded.
 * @module
 */
import FindMyWay from 'find-my-way';
import { authenticate } from './caller.js';
import { serializerFor, validatorFor } from './codecs.js';
import type { Handler, Operation, Route, Serializer } from './context.js';
import {
  endpoints, pathParamNames, recommendEndpoints, unknownRecommendMethod,
  type EndpointDeclaration, type EndpointName, type OperationDeclaration,
} from './endpoints.js';
import { HttpError } from './errors.js';
import { isValidPercentEncoding } from './percent-encoding.js';
import { noQueryDecoder, queryDecoderFor, type QueryDecoder } from './query.js';
import { RecentMemo } from '@aisle/engine/internal';

/**
 * The handler that runs an operation: its declared authentication first, unless it is public, then
 * the decoding of its declared query string (after authentication: a caller without a token learns
 * nothing from the query's errors). An operation declaring no query takes none (noQueryDecoder),
 * unless its endpoint ignores the query (`queryIgnored`): then its handler runs as it is.
 */
function withPreconditions(declaration: OperationDeclaration, decodeQuery: QueryDecoder | undefined): Handler {
  const { auth, handler } = declaration;
  // Undeclared, the params stay unset: a handler reading them fails loudly (handlers.ts).
  const declared = declaration.query !== undefined;
  if (auth === 'public') {
    if (!decodeQuery) return handler;
    // Not async: the recommendation methods are the hot GET path, and this adds no promise per request.
    return (ctx, state) => {
      try {
        const params = decodeQuery(ctx.query, state.limits.maxQueryItems);
        if (declared) ctx.queryParams = params;
      } catch (err) {
        return Promise.reject(err);
      }
      return handler(ctx, state);
    };
  }
  return async (ctx, state) => {
    await authenticate(auth, ctx, state);
    const params = decodeQuery?.(ctx.query, state.limits.maxQueryItems);
    if (declared) ctx.queryParams = params;
    await handler(ctx, state);
  };
}

function compileOperation(declaration: OperationDeclaration, queryIgnored: boolean): Operation {
  const serializers = new Map<number, Serializer>();
  for (const [status, response] of Object.entries(declaration.responses)) {
    if (response.schema) serializers.set(Number(status), serializerFor(response.schema));
  }
  const body = declaration.body;
  const decodeQuery = declaration.query ? queryDecoderFor(declaration.query) : queryIgnored ? undefined : noQueryDecoder;
  return {
    declaration,
    handler: withPreconditions(declaration, decodeQuery),
    serializers,
    ...(body?.validate && { validator: validatorFor(body.schema) }),
  };
}

/** The route of one endpoint declaration. */
export function compileRoute(endpoint: EndpointDeclaration): Route {
  const operations = new Map<string, Operation>();
  for (const declaration of endpoint.operations) operations.set(declaration.method, compileOperation(declaration, endpoint.queryIgnored === true));
  const get = operations.get('GET');
  if (get && !endpoint.getChangesState) operations.set('HEAD', get);
  return {
    template: endpoint.path,
    operations,
    allow: [...operations.keys(), 'OPTIONS'].join(', '),
    shape: endpoint.errorShape,
    cors: endpoint.cors,
    timed: endpoint.timed ?? true,
  };
}

/** Every named route of the surface (used by the listener and the tests). */
export const routes = Object.fromEntries(
  Object.entries(endpoints).map(([name, endpoint]) => [name, compileRoute(endpoint)]),
) as Record<EndpointName, Route>;

/** The recommendation routes, one per method segment, keyed by the lowercased segment (matching is case-insensitive, as in the engine). */
export const recommendRoutes: ReadonlyMap<string, Route> = new Map(
  recommendEndpoints.map((endpoint) => [endpoint.path.slice(endpoint.path.lastIndexOf('/') + 1).toLowerCase(), compileRoute(endpoint)]),
);

const unknownMethodRoute = compileRoute(unknownRecommendMethod);

/**
 * What a `/1.0/ClientRecom/{website_id}/{segment}` resolves to, by lowercased segment: the methods and the
 * bundle, whose segment matches case-insensitively too (`…/Bundle` is the spec's `…/bundle` as
 * `…/productdetail` is `…/ProductDetail`; a POST to it answered 405 "allowed: GET").
 */
const segmentRoutes: ReadonlyMap<string, Route> = new Map([
  ...recommendRoutes,
  [endpoints.bundle.path.slice(endpoints.bundle.path.lastIndexOf('/') + 1).toLowerCase(), routes.bundle],
]);

/** The pseudo-route of paths that match nothing (metrics label `unmatched`). */
export const unmatchedRoute: Route = { template: 'unmatched', operations: new Map(), allow: 'OPTIONS', shape: 'envelope', cors: false, timed: true };

/** A matched route with its decoded path parameters. */
export interface RouteMatch {
  route: Route;
  params: readonly string[];
}

/**
 * What the tree stores per path: the route and its parameter names in template order, or (for the
 * recommendation methods, whose segment matches case-insensitively) a resolver by segment.
 */
interface Target {
  names: string[];
  resolve(params: Record<string, string | undefined>): Route;
}

/**
 * find-my-way matches the path only: the listener answers 405 with the route's `Allow` itself, which
 * needs the route whatever the method, so every route is filed under one method of the tree.
 */
const TREE_METHOD = 'GET';

const tree = FindMyWay({
  // Path parameters (refIds, keys) are bounded by the header size limit, not by the router's default of 100 characters.
  maxParamLength: 16 * 1024,
});

const fileTarget = (template: string, route: Route): void => {
  const names = pathParamNames(template);
  tree.on(TREE_METHOD, template.replace(/\{([^}]+)\}/g, ':$1'), () => undefined, { names, resolve: () => route } satisfies Target);
};

for (const [name, route] of Object.entries(routes)) fileTarget(endpoints[name as EndpointName].path, route);
// One parametric route for every method segment: the declared ones (and bundle) match case-insensitively, others are 404 (unknownRecommendMethod).
tree.on(TREE_METHOD, unknownRecommendMethod.path.replace(/\{([^}]+)\}/g, ':$1'), () => undefined, {
  names: pathParamNames(unknownRecommendMethod.path),
  resolve: (params) => segmentRoutes.get(params.method!.toLowerCase()) ?? unknownMethodRoute,
} satisfies Target);

/**
 * A path that names an endpoint but has a segment that is not valid percent-encoding (400). It carries
 * the endpoint's route, so that the answer takes that endpoint's error shape (problem details on the
 * admin and event endpoints) and its metrics label, as a 405 does.
 */
export class MalformedPathError extends HttpError<'PATH_SEGMENT_MALFORMED'> {
  /** The route of the endpoint the path names. */
  readonly route: Route;

  /** `segment` is the first segment of the path that does not decode. */
  constructor(route: Route, segment: string) {
    super('PATH_SEGMENT_MALFORMED', { segment });
    this.route = route;
  }
}

/** Most paths remembered (then all are forgotten and remembered again as asked)… */
export const MATCHED_PATHS = 1024;
/** Paths matched lately, with their match (null: none), so that a storefront's few hot paths skip the tree. */
const matched = new RecentMemo<string, Readonly<RouteMatch> | null>(MATCHED_PATHS);
/** …each at most this long (a longer one is matched every time: the memory stays under ~256 KiB). */
export const MATCHED_PATH_LENGTH = 256;

/**
 * Finds the route of a path (without prefix and query), or undefined. A parameter must not be empty.
 * Throws {@link MalformedPathError} when the path would match but a segment is not valid percent-encoding.
 * A match is shared by the requests of the same path (frozen: its params are read, never changed).
 */
export function matchRoute(path: string): Readonly<RouteMatch> | undefined {
  const known = matched.get(path);
  if (known !== undefined) return known ?? undefined;
  const found = findRoute(path);
  const match = found === undefined ? undefined : Object.freeze({ route: found.route, params: Object.freeze(found.params) });
  if (path.length <= MATCHED_PATH_LENGTH) matched.remember(path, match ?? null);
  return match;
}

function findRoute(path: string): RouteMatch | undefined {
  const found = tree.find(TREE_METHOD, path);
  if (!found) {
    // find-my-way does not match a path whose parameters do not decode; the same path with every "%"
    // escaped does: then the request names an endpoint with a malformed segment, a 400 and not a 404.
    const escaped = path.includes('%') ? tree.find(TREE_METHOD, path.replaceAll('%', '%25')) : null;
    if (escaped) {
      const bad = path.split('/').find((segment) => !isValidPercentEncoding(segment));
      throw new MalformedPathError((escaped.store as Target).resolve(escaped.params), bad ?? path);
    }
    return undefined;
  }
  const target = found.store as Target;
  const params = target.names.map((name) => found.params[name] ?? '');
  if (params.includes('')) return undefined;
  return { route: target.resolve(found.params), params };
}
