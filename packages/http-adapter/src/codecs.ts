/**
 * Precompiled codecs built once from the schemas module: fast-json-stringify serialisers for every
 * response body, and the engine's ajv validators for the request bodies the adapter checks itself.
 * @module
 */
import { describeAjvError, validatorFor } from '@aisle/engine';
import fastJson from 'fast-json-stringify';
import { inlineRefs, schemas, type SchemaName } from './schemas.js';

type Serializer = (doc: unknown) => string;

/**
 * Products are open objects returned exactly as given: fast-json-stringify would stringify them key by
 * key (about twice the time of one JSON.stringify per product, measured on generated search pages), so
 * the serialisers treat `Product` as "any value", which it emits with JSON.stringify.
 */
function compileSerializer(name: SchemaName): Serializer {
  return fastJson(inlineRefs(schemas[name], { anyFor: ['Product'] }) as fastJson.AnySchema) as Serializer;
}

const serializeSearchEnvelope = compileSerializer('SearchResponse');

/**
 * The JSON text of products already sent, by product object. The catalog hands out the same object for
 * a product until it changes (a changed product is a new object), so a hit can never be stale; popular
 * products recur on many pages, and their JSON is most of a search answer. Bounded: cleared when full.
 */
const productJson = new Map<object, string>();
const PRODUCT_JSON_CACHE_SIZE = 50_000;

function jsonOfProduct(product: unknown): string {
  if (typeof product !== 'object' || product === null) return JSON.stringify(product) ?? 'null';
  let text = productJson.get(product);
  if (text === undefined) {
    text = JSON.stringify(product);
    if (productJson.size >= PRODUCT_JSON_CACHE_SIZE) productJson.clear();
    productJson.set(product, text);
  }
  return text;
}

// The envelope is serialised with an empty page, which its schema writes first, then the page is spliced in.
const EMPTY_PAGE_PREFIX = '{"type":1,"payload":{"result":[]';

function serializeSearchResponse(doc: unknown): string {
  const response = doc as { type: number; payload: { result: unknown[] } & Record<string, unknown> };
  const envelope = serializeSearchEnvelope({ ...response, payload: { ...response.payload, result: [] } });
  if (!envelope.startsWith(EMPTY_PAGE_PREFIX)) return serializeSearchEnvelope(doc);
  const page = response.payload.result.map(jsonOfProduct).join(',');
  return `${EMPTY_PAGE_PREFIX.slice(0, -1)}${page}]${envelope.slice(EMPTY_PAGE_PREFIX.length)}`;
}

/** Response serialisers, by schema name. */
export const serialize = {
  SearchResponse: serializeSearchResponse,
  RecommendResponse: compileSerializer('RecommendResponse'),
  BundleResponse: compileSerializer('BundleResponse'),
  EventAck: compileSerializer('EventAck'),
  CouponUsed: compileSerializer('CouponUsed'),
  ErrorEnvelope: compileSerializer('ErrorEnvelope'),
  ProblemDetails: compileSerializer('ProblemDetails'),
  LoadSummary: compileSerializer('LoadSummary'),
  DeleteResult: compileSerializer('DeleteResult'),
  CouponIssueResult: compileSerializer('CouponIssueResult'),
  WebsiteStats: compileSerializer('WebsiteStats'),
  AttributionReport: compileSerializer('AttributionReport'),
  SearchReport: compileSerializer('SearchReport'),
  // Settings are an open object whose keys grow with the engine: written as they are.
  WebsiteSettings: (doc: unknown) => JSON.stringify(doc),
  Health: compileSerializer('Health'),
  CreatedSearchKey: compileSerializer('CreatedSearchKey'),
  SearchKeyList: compileSerializer('SearchKeyList'),
} satisfies Partial<Record<SchemaName, Serializer>>;

/**
 * Request-body validators, by schema name: the engine's own, compiled once from its contract (the
 * engine checks the same bodies again with the same compiled functions).
 */
export const validate = {
  SearchRequest: validatorFor('SearchRequest'),
  BundleRequest: validatorFor('BundleRequest'),
  CouponIssueRequest: validatorFor('CouponIssueRequest'),
};

/**
 * The first useful ajv error as `{path, message}` with the path in the dotted/indexed form used on the
 * wire (`scope.price.min`, `sort_fields[0]`), so the message names the field: the engine's wording.
 */
export { describeAjvError };
