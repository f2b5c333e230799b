/**
 * aisle's HTTP adapter: a node:http request listener for the documented paths, a server with graceful
 * shutdown, the JSON schemas of the surface and its OpenAPI 3.1 description.
 * @module
 */
export { createListener, DEFAULT_LIMITS, type AisleListener, type ListenerOptions, type NextFunction } from './listener.js';
export { createServer, type AisleServer, type ServerOptions } from './server.js';
export type { ListenerLimits } from './context.js';
export { HttpError, STATUS_BY_CODE, problemFor, toWireError, type ErrorShape, type WireError } from './errors.js';
export { HttpMetrics } from './metrics.js';
export { logDestination, LOG_BUFFER_BYTES, LOG_FLUSH_MS } from './log-destination.js';
export { TokenIndex, bearerToken } from './auth.js';
export { buildOpenApi } from './openapi.js';
export {
  schemas, inlineRefs, querySchemas, RECOMMEND_METHODS, type JsonSchema, type SchemaName, type QuerySchemaName, type RecommendMethod,
} from './schemas.js';
export { routes, recommendRoutes, matchRoute, MalformedPathError } from './router.js';
export { endpoints, recommendEndpoints, TAGS, type EndpointDeclaration, type OperationDeclaration, type AuthKind, type HttpMethod } from './endpoints.js';
export { queryDecoderFor, compileQueryDecoder, parseQueryString, type QueryDecoder, type QueryParams } from './query.js';
export { DEFAULT_DASHBOARD_DIR, type DashboardOptions } from './dashboard.js';
export { dashboardConfig, type DashboardConfig, type DashboardPrefill, type DashboardSite, type DisplayFields } from './dashboard-config.js';
