/**
 * Codecs compiled from the schemas module, once per schema: fast-json-stringify serialisers of the
 * response bodies and ajv validators of the request bodies the adapter checks itself. Which schemas
 * need them follows from the endpoint declarations (endpoints.ts); the router compiles them at start.
 * @module
 */
import { describeAjvError, validatorFor } from '@aisle/engine';
import fastJson from 'fast-json-stringify';
import type { Serializer } from './context.js';
import { inlineRefs, schemas, type SchemaName } from './schemas.js';

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

/**
 * Open objects whose keys grow with the engine or are the shop's own (settings, products): written
 * as they are with JSON.stringify, not through a fixed schema that would drop keys.
 */
const OPEN_SCHEMAS: ReadonlySet<SchemaName> = new Set(['WebsiteSettings', 'Product']);

const serializers = new Map<SchemaName, Serializer>([['SearchResponse', serializeSearchResponse]]);

/** The response serialiser of a schema (compiled on first use, then shared). */
export function serializerFor(name: SchemaName): Serializer {
  let serializer = serializers.get(name);
  if (serializer === undefined) {
    serializer = OPEN_SCHEMAS.has(name) ? (doc: unknown) => JSON.stringify(doc) : compileSerializer(name);
    serializers.set(name, serializer);
  }
  return serializer;
}

/** The serialisers used outside the declared responses: the two error shapes, and search (measured by the bench). */
export const serialize = {
  SearchResponse: serializerFor('SearchResponse'),
  ErrorEnvelope: serializerFor('ErrorEnvelope'),
  ProblemDetails: serializerFor('ProblemDetails'),
};

/**
 * The request-body validators (compiled once, shared with the engine, which checks the same bodies with
 * the same functions) and the first useful ajv error as `{path, message}` in the engine's wording.
 */
export { describeAjvError, validatorFor };
