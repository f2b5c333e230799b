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
import { RecentMemo } from '@aisle/engine/internal';

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
const PRODUCT_JSON_CACHE_SIZE = 50_000;
const productJson = new RecentMemo<object, string>(PRODUCT_JSON_CACHE_SIZE);

function jsonOfProduct(product: unknown): string {
  if (typeof product !== 'object' || product === null) return JSON.stringify(product) ?? 'null';
  return productJson.get(product) ?? productJson.remember(product, JSON.stringify(product));
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

const serializeRecommendEnvelope = compileSerializer('RecommendResponse');

/**
 * A kept recommendation's JSON up to its list id (`{"type":1,…,"recommenderId":"…","queryId":`), by its
 * frozen `slots` list: the engine shares one kept answer's frozen lists among all the answers of the same
 * request (engine kept-answers.ts), so the JSON of everything but the id is written once per kept answer
 * instead of once per request (decision 0094). Weakly held: gone with the kept answer.
 */
const keptAnswerPrefix = new WeakMap<object, { prefix: string; payload: unknown; type: unknown; code: unknown; recommenderId: unknown }>();
/** How the schema ends an answer whose list id is empty: the id is written where the empty one was. */
const EMPTY_ID_END = ',"queryId":""}';

function serializeRecommendResponse(doc: unknown): string {
  const answer = doc as { type: number; code: number; payload: unknown[]; slots: unknown[]; recommenderId: string; queryId: string; experiment?: unknown };
  // Only a frozen answer (a kept one) cannot change under its JSON; an experiment's tag follows the id.
  if (!Object.isFrozen(answer.slots) || !Object.isFrozen(answer.payload) || answer.experiment !== undefined || typeof answer.queryId !== 'string') {
    return serializeRecommendEnvelope(doc);
  }
  const { type, code, payload, slots, recommenderId } = answer;
  let kept = keptAnswerPrefix.get(slots);
  // The rest of the answer is the kept one's too (always, from the engine: checked, not assumed).
  if (kept === undefined || kept.payload !== payload || kept.type !== type || kept.code !== code || kept.recommenderId !== recommenderId) {
    const whole = serializeRecommendEnvelope({ type, code, payload, slots, recommenderId, queryId: '' });
    if (!whole.endsWith(EMPTY_ID_END)) return serializeRecommendEnvelope(doc);
    kept = { prefix: whole.slice(0, -'""}'.length), payload, type, code, recommenderId };
    keptAnswerPrefix.set(slots, kept);
  }
  // The same text the schema's serialiser writes for a string (JSON escaping).
  return `${kept.prefix}${JSON.stringify(answer.queryId)}}`;
}

/**
 * Open objects whose keys grow with the engine or are the shop's own (settings, products): written
 * as they are with JSON.stringify, not through a fixed schema that would drop keys.
 */
const OPEN_SCHEMAS: ReadonlySet<SchemaName> = new Set(['WebsiteSettings', 'Product']);

const serializers = new Map<SchemaName, Serializer>([['SearchResponse', serializeSearchResponse], ['RecommendResponse', serializeRecommendResponse]]);

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
