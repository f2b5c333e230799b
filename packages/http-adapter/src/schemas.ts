/**
 * Every JSON schema of the HTTP surface, in one place. The same objects are used three ways:
 * ajv validates request bodies with them, fast-json-stringify compiles response serialisers from
 * them, and `buildOpenApi` publishes them under `components.schemas`. Keep them to the keyword subset
 * that JSON Schema 2020-12 (OpenAPI 3.1), draft-07 (ajv default) and fast-json-stringify share.
 * Cross references use `#/components/schemas/<Name>`; {@link inlineRefs} resolves them for the
 * validators and serialisers.
 * @module
 */
import { DEFAULT_SEARCH_SIZE, MAX_QUERY_LENGTH, MAX_SEARCH_SIZE } from '@aisle/engine';

/** A JSON schema object (loosely typed: these are data, checked by the OpenAPI validator test). */
export type JsonSchema = Record<string, unknown>;

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const str = (description?: string): JsonSchema => (description ? { type: 'string', description } : { type: 'string' });
const int = (description?: string): JsonSchema => (description ? { type: 'integer', description } : { type: 'integer' });
const num = (description?: string): JsonSchema => (description ? { type: 'number', description } : { type: 'number' });
const strArray = (description?: string): JsonSchema => ({ type: 'array', items: { type: 'string' }, ...(description ? { description } : {}) });

/** The seventeen recommendation method segments of the spec, in its order. */
export const RECOMMEND_METHODS = [
  'Personalized', 'ProductDetail', 'Cart', 'ViewedTogetherAttributes', 'ViewedTogetherVisuallySimilar',
  'SimilarAttributesViewedTogether', 'VisuallySimilarViewedTogether', 'PopularItems', 'ViewedTogether', 'BoughtTogether',
  'OnlyVisuallySimilar', 'OnlySimilarAttributes', 'BoughtTogetherCartContent', 'BoughtTogetherRecentlyViewed',
  'ViewedTogetherRecentlyViewed', 'RecentlyViewed', 'HistoricViewed',
] as const;

/** One recommendation method segment. */
export type RecommendMethod = (typeof RECOMMEND_METHODS)[number];

const retailMediaSlot: JsonSchema = {
  type: 'object',
  description: 'Retail-media data of a sponsored slot; echo it unchanged in the purchase product object.',
  required: ['adSetId', 'adSetVersion', 'timeStamp', 'hmacSalt', 'hmac'],
  properties: {
    adSetId: str(), adSetVersion: int(), costPerClick: num(), costPerAction: num(), costPerMille: num(),
    timeStamp: str(), hmacSalt: str(), hmac: str(), bannerId: str(), placementId: str(),
  },
};

/** The component schemas, by name. */
export const schemas = {
  Scope: {
    type: 'object',
    description: 'Filters by field: text fields take an array of values (OR) or {not: [...]}; numeric fields take {min?, max?, not?}. Keys combine with AND.',
    additionalProperties: {
      anyOf: [
        { type: 'array', items: { type: 'string' } },
        { type: 'object', required: ['not'], properties: { not: { type: 'array', items: { type: 'string' } } }, additionalProperties: false },
        {
          type: 'object',
          properties: { min: num(), max: num(), not: { type: 'array', items: { type: 'number' } } },
          additionalProperties: false,
        },
      ],
    },
  },
  SearchRequest: {
    type: 'object',
    description: 'The documented search request body.',
    required: ['website_id', 'q', 'client', 'start'],
    properties: {
      customer_id: str('Customer id; required when personalization is enabled for the website, and then the best results are re-ranked toward what this customer viewed and bought (same set, totals and facets).'),
      website_id: { type: 'string', minLength: 1 },
      q: { type: 'string', maxLength: MAX_QUERY_LENGTH, description: 'Query text; "" matches every product (category browsing).' },
      client: { type: 'string', minLength: 1 },
      start: { type: 'integer', minimum: 0, description: 'Offset of the first result.' },
      size: { type: 'integer', minimum: 0, maximum: MAX_SEARCH_SIZE, default: DEFAULT_SEARCH_SIZE, description: `Maximum number of results (default ${DEFAULT_SEARCH_SIZE}, at most ${MAX_SEARCH_SIZE}).` },
      scope: ref('Scope'),
      aggregations: strArray('Text fields for which a document count per value is returned.'),
      range_fields: strArray('Numeric fields for which min and max are returned.'),
      disjunctive_facets: strArray('Fields whose aggregation counts ignore the field\'s own scope condition (other conditions still apply); '
        + 'each is aggregated even when aggregations does not name it.'),
      highlight: { type: 'boolean', description: 'When true, each result item carries _highlight: {<field>: "HTML-escaped text with <em>matched</em> words"} for the text fields that matched.' },
      sort_fields: {
        type: 'array',
        description: 'Ordered sort keys; each element has exactly one key, the field name, or the pseudo-field `_score` (relevance) to place relevance among the keys (otherwise it comes after them, before the website\'s tie-breakers).',
        items: {
          type: 'object',
          minProperties: 1,
          maxProperties: 1,
          additionalProperties: {
            type: 'object',
            required: ['order', 'type'],
            additionalProperties: false,
            properties: { order: { type: 'string', enum: ['asc', 'desc'] }, type: { type: 'string', enum: ['number', 'text'] } },
          },
        },
      },
    },
  },
  FacetBucket: {
    type: 'object',
    required: ['key', 'doc_count'],
    properties: { key: str(), doc_count: int() },
  },
  NumericRange: {
    type: 'object',
    required: ['min', 'max'],
    properties: { min: { type: ['number', 'null'] }, max: { type: ['number', 'null'] } },
  },
  SearchResponse: {
    type: 'object',
    required: ['type', 'payload'],
    properties: {
      type: { type: 'integer', description: '1 on success.' },
      payload: {
        type: 'object',
        required: ['result', 'total_results', 'suggestions', 'redirects'],
        properties: {
          result: { type: 'array', items: ref('Product'), description: 'The products of the page, each exactly as loaded.' },
          total_results: int(),
          aggregations: { type: 'object', additionalProperties: { type: 'array', items: ref('FacetBucket') } },
          ranges: { type: 'object', additionalProperties: ref('NumericRange') },
          suggestions: {
            type: 'object',
            properties: {
              corrected_query: str('The query with each word that matched only by typo replaced by its best correction.'),
              dropped_words: strArray('When no product matches every query word: the words the best result does not match (the results are the products matching the most words).'),
              queries: strArray(),
            },
          },
          redirects: { type: 'object', properties: { url: str() } },
        },
      },
      settings: { type: 'object', description: 'Present only when a semantic model took part in ranking the results.', properties: { ats_model: str('The semantic model that ranked the results, as "id@version"; echo as atsModel in purchase products.') } },
    },
  },
  ErrorEnvelope: {
    type: 'object',
    description: 'Error body of search, recommendation, bundle, coupon and unmatched paths: a negative type, the HTTP status as code, and a message.',
    required: ['type', 'code', 'message'],
    properties: { type: { type: 'integer', description: 'Always -1.' }, code: int('The HTTP status.'), message: str() },
  },
  ProblemDetails: {
    type: 'object',
    description: 'RFC 7807 problem details (purchase, view and admin endpoints).',
    required: ['type', 'title', 'status', 'errors', 'traceId'],
    properties: {
      type: str('URL of the HTTP status definition.'),
      title: str(),
      status: int(),
      errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } }, description: 'Messages keyed by property path; "$" is the request as a whole.' },
      traceId: str('W3C traceparent form.'),
    },
  },
  RetailMediaSlot: retailMediaSlot,
  RecommendationSlot: {
    type: 'object',
    required: ['refId', 'tacticLabel', 'tacticId'],
    properties: {
      refId: str(), tacticLabel: str(), tacticId: str(),
      retailMedia: ref('RetailMediaSlot'),
      retailBoost: { type: 'object', required: ['retailBoostCollectionCampaignId'], properties: { retailBoostCollectionCampaignId: str() } },
    },
  },
  RecommendResponse: {
    type: 'object',
    required: ['type', 'code', 'payload'],
    properties: {
      type: int('1 on success.'),
      code: int('0 on success.'),
      payload: strArray('Product reference ids.'),
      slots: { type: 'array', items: ref('RecommendationSlot'), description: 'One per payload entry, same order.' },
      recommenderId: str(),
    },
  },
  BundleRequest: {
    type: 'object',
    required: ['product_ref_ids'],
    properties: {
      product_ref_ids: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, maxItems: 100, description: 'RefIds every bundle contains.' },
      setCount: { type: 'integer', minimum: 1, maximum: 20, default: 1, description: 'Number of bundles (default 1, at most 20).' },
      count: { type: 'integer', minimum: 2, maximum: 100, description: 'Items per bundle including the inputs (default 1 + number of product_ref_ids, at most 100).' },
      filter_out_of_stock: { type: 'boolean' },
    },
  },
  BundleResponse: {
    type: 'object',
    required: ['type', 'code', 'payload'],
    properties: {
      type: int(), code: int(),
      payload: { type: 'array', items: strArray(), description: 'A list of bundles, each a list of RefIds.' },
      recommenderId: str(),
    },
  },
  PurchaseProduct: {
    type: 'object',
    required: ['refId', 'quantity', 'price'],
    properties: {
      refId: str(), quantity: int(), price: num(),
      routeId: str(), widgetId: str(), recommenderId: str(), campaignId: str(), tacticId: str(), clickId: str(),
      referralUrl: str(), tacticLabel: str(), atsModel: str(), supplierId: str(),
      retailBoostCollectionCampaignId: str(),
      adSetId: str(), adSetVersion: int(), costPerClick: num(), costPerAction: num(), costPerMille: num(),
      timeStamp: str(), hmacSalt: { type: 'string', minLength: 16, maxLength: 16 }, hmac: str(), bannerId: str(), placementId: str(),
    },
  },
  PurchaseEvent: {
    type: 'object',
    required: ['currentUrl', 'eventTime', 'orderId', 'products'],
    properties: {
      currentUrl: str(), eventTime: { type: 'string', description: 'UTC date-time.' }, orderId: str(),
      paymentMethod: str(), currencyCode: { type: 'string', minLength: 3, maxLength: 3 },
      products: { type: 'array', minItems: 1, items: ref('PurchaseProduct') },
      priceBeatPromotions: { type: 'array', items: { type: 'object', required: ['code', 'discount'], properties: { code: str(), discount: num() } } },
      recommenderId: str(), campaignId: str(), tacticId: str(),
    },
  },
  PurchaseRequest: {
    type: 'object',
    required: ['customerId', 'sessionId', 'events'],
    properties: { customerId: str('GUID.'), sessionId: str('GUID.'), events: { type: 'array', items: ref('PurchaseEvent') } },
  },
  ViewEvent: {
    type: 'object',
    required: ['currentUrl', 'eventTime', 'refId'],
    properties: {
      currentUrl: str(), eventTime: str(), refId: str(), referralUrl: str(), recommenderId: str(), tacticId: str(), clickId: str(),
    },
  },
  ViewRequest: {
    type: 'object',
    required: ['customerId', 'sessionId', 'events'],
    properties: { customerId: str(), sessionId: str(), events: { type: 'array', items: ref('ViewEvent') } },
  },
  EventAck: {
    type: 'object',
    required: ['transactionId', 'status'],
    properties: { transactionId: str(), status: { type: 'string', enum: ['Accepted'] } },
  },
  CouponUsed: {
    type: 'object',
    description: 'Body of a successful coupon call (the spec leaves it open).',
    required: ['type', 'code', 'payload'],
    properties: {
      type: int('1.'), code: int('0.'),
      payload: { type: 'object', required: ['code', 'websiteId', 'usedAt'], properties: { code: str(), websiteId: str(), usedAt: str() } },
    },
  },
  Product: {
    type: 'object',
    required: ['refId'],
    additionalProperties: true,
    properties: {
      refId: str(), availability: int('0 out of stock, -1 not tracked, >0 in stock.'), style_id: str(),
      _highlight: { type: 'object', additionalProperties: str(), description: 'Search with highlight: true only. Field → its HTML-escaped text with the matched words in <em>…</em>.' },
      image_vector: { type: 'array', items: { type: 'number' } },
    },
  },
  LoadSummary: {
    type: 'object',
    required: ['loaded', 'skipped', 'skippedCount', 'catalogSize'],
    properties: {
      loaded: int(),
      skipped: { type: 'array', items: { type: 'object', required: ['line', 'message'], properties: { line: int(), message: str() } } },
      skippedCount: int(),
      strayValues: {
        type: 'array',
        description: 'Values of a numeric field that are not numbers (e.g. "N/A"): kept, missing for ranges and number sorts.',
        items: { type: 'object', required: ['field', 'count', 'refIds'], properties: { field: str(), count: int(), refIds: { type: 'array', items: str() } } },
      },
      catalogSize: int(),
    },
  },
  DeleteResult: {
    type: 'object',
    required: ['deleted', 'catalogSize'],
    properties: { deleted: int(), catalogSize: int() },
  },
  CouponIssueRequest: {
    type: 'object',
    required: ['coupons'],
    properties: {
      coupons: {
        type: 'array',
        items: { type: 'object', required: ['code'], properties: { code: { type: 'string', minLength: 1 }, customerId: str(), discount: num() }, additionalProperties: false },
      },
    },
  },
  CouponIssueResult: {
    type: 'object',
    required: ['issued'],
    properties: { issued: int() },
  },
  WebsiteStats: {
    type: 'object',
    required: ['websiteId', 'products', 'views', 'purchases', 'orders', 'coupons'],
    properties: {
      websiteId: str(), products: int(), views: int(), purchases: int(), orders: int(),
      coupons: { type: 'object', required: ['issued', 'used'], properties: { issued: int(), used: int() } },
    },
  },
  AttributionLine: {
    type: 'object',
    required: ['key', 'revenue', 'orders', 'units'],
    properties: { key: str(), revenue: num(), orders: int(), units: num() },
  },
  WebsiteSettings: {
    type: 'object',
    description: 'A website\'s settings (every key described in docs/operations.md, "Website settings"). GET answers every key, '
      + 'defaults filled in; PUT replaces; PATCH merges (JSON Merge Patch, RFC 7396: null removes a key). The engine validates '
      + 'them with the config file\'s validator: an unknown key or a bad value answers 400 naming the key.',
    additionalProperties: true,
    properties: {
      personalization: { description: 'true | false | {weight: number >= 0} (docs/personalization.md).' },
      semanticSearch: { description: 'true | false | {model: string, weight: number >= 0} (docs/semantic-search.md).' },
      fieldWeights: { type: 'object', additionalProperties: num() },
      synonyms: { type: 'array', description: 'Groups of equivalent words or phrases (["tv", "television"], two-way) and one-way {from, to: [...]} entries.' },
      language: str('Stemming and default stop words: en (default), da, de, es, fi, fr, it, nl, no, pt, ru, sv.'),
      stopWords: strArray('Added to the language\'s default stop words.'),
      typoTolerance: {
        type: 'object',
        description: 'Edits allowed by word length (defaults: enabled, 1 edit from 4 letters, 2 from 8).',
        properties: { enabled: { type: 'boolean' }, minWordSizeOneTypo: int(), minWordSizeTwoTypos: int() },
      },
      ranking: {
        type: 'object',
        description: 'tieBreakers: [{field, order: asc|desc, type?: number|text}], keys applied after relevance and after sort_fields.',
        properties: { tieBreakers: { type: 'array', items: { type: 'object', additionalProperties: true } } },
      },
      redirects: { type: 'array' }, retailMedia: { type: 'object' }, retailBoost: { type: 'object' },
      cors: { type: 'object' }, attributionWindowDays: num(), useStyleIdForVisualSimilarity: { type: 'boolean' },
      rules: {
        type: 'array',
        description: 'Merchandising rules: [{id, query, match: exact|contains, pin: [{refId, position}], hide: [refId], boost: [{scope, weight}], from?, until?}].',
        items: { type: 'object', additionalProperties: true },
      },
    },
  },
  SearchReport: {
    type: 'object',
    required: ['websiteId', 'top', 'noResults'],
    properties: {
      websiteId: str(), from: str(), to: str(),
      top: {
        type: 'array',
        description: 'Most searched normalised queries (count descending, then query), with the mean number of results.',
        items: { type: 'object', required: ['query', 'count', 'avgResults'], properties: { query: str(), count: int(), avgResults: num() } },
      },
      noResults: {
        type: 'array',
        description: 'Queries whose searches found nothing, by the number of such searches.',
        items: { type: 'object', required: ['query', 'count'], properties: { query: str(), count: int() } },
      },
    },
  },
  AttributionReport: {
    type: 'object',
    required: ['websiteId', 'totals', 'byRecommender', 'byWidget', 'byCampaign', 'byTactic', 'byAtsModel', 'retailMedia', 'priceBeat', 'flagged'],
    properties: {
      websiteId: str(), from: str(), to: str(),
      totals: {
        type: 'object',
        required: ['revenue', 'orders', 'units', 'attributedRevenue'],
        properties: { revenue: num(), orders: int(), units: num(), attributedRevenue: num() },
      },
      byRecommender: { type: 'array', items: ref('AttributionLine') },
      byWidget: { type: 'array', items: ref('AttributionLine') },
      byCampaign: { type: 'array', items: ref('AttributionLine') },
      byTactic: { type: 'array', items: ref('AttributionLine') },
      byAtsModel: { type: 'array', items: ref('AttributionLine') },
      retailMedia: {
        type: 'array',
        items: {
          type: 'object',
          required: ['adSetId', 'units', 'revenue', 'spend', 'clicksCost', 'milleCost', 'flagged'],
          properties: { adSetId: str(), units: num(), revenue: num(), spend: num(), clicksCost: num(), milleCost: num(), flagged: int() },
        },
      },
      priceBeat: {
        type: 'array',
        items: { type: 'object', required: ['code', 'discount', 'orders', 'reused'], properties: { code: str(), discount: num(), orders: int(), reused: int() } },
      },
      flagged: {
        type: 'array',
        items: { type: 'object', required: ['orderId', 'refId', 'reason'], properties: { orderId: str(), refId: str(), reason: str() } },
      },
    },
  },
  SearchKeyRequest: {
    type: 'object',
    description: 'A browser search key to create.',
    required: ['actions'],
    additionalProperties: false,
    properties: {
      actions: { type: 'array', minItems: 1, items: { type: 'string', enum: ['search'] }, description: 'What the key opens; only "search" exists.' },
      expiresAt: { type: 'string', format: 'date-time', description: 'When the key stops working (ISO 8601, in the future). Absent: never.' },
      scope: { ...ref('Scope'), description: 'Forced scope ANDed with every request made with the key (the caller cannot widen it).' },
    },
  },
  SearchKey: {
    type: 'object',
    description: 'A search key as listed; the key itself is shown only once, when created.',
    required: ['id', 'websiteId', 'keyPrefix', 'actions', 'createdAt', 'expired'],
    properties: {
      id: str('Public id (accepted by DELETE …/keys/{key} instead of the key).'),
      websiteId: str(),
      keyPrefix: str('The first characters of the key, to recognise it.'),
      actions: strArray(),
      scope: ref('Scope'),
      expiresAt: str('ISO 8601.'),
      createdAt: str('ISO 8601.'),
      expired: { type: 'boolean' },
    },
  },
  CreatedSearchKey: {
    type: 'object',
    description: 'A key just created: the listed fields plus `key`, shown this once (only its SHA-256 is stored).',
    required: ['key', 'id', 'websiteId', 'keyPrefix', 'actions', 'createdAt', 'expired'],
    properties: {
      key: str('The key: send it as `Authorization: Bearer <key>` to POST /v1.4/search.'),
      id: str(), websiteId: str(), keyPrefix: str(), actions: strArray(), scope: ref('Scope'), expiresAt: str(), createdAt: str(), expired: { type: 'boolean' },
    },
  },
  SearchKeyList: {
    type: 'object',
    required: ['keys'],
    properties: { keys: { type: 'array', items: ref('SearchKey') } },
  },
  Health: {
    type: 'object',
    required: ['status'],
    properties: {
      status: { type: 'string', enum: ['ok', 'ready', 'not ready'] },
      checks: {
        type: 'array',
        description: 'Readiness only: each check (listener, store, disk, recommendations) with the reason when it fails.',
        items: { type: 'object', required: ['name', 'ok'], properties: { name: str(), ok: { type: 'boolean' }, reason: str() } },
      },
    },
  },
} satisfies Record<string, JsonSchema>;

/** The name of one component schema. */
export type SchemaName = keyof typeof schemas;

/**
 * Returns a deep copy of `schema` with every `#/components/schemas/<Name>` reference replaced by the
 * schema itself (the component graph has no cycles), for ajv and fast-json-stringify. References to
 * the schemas named in `anyFor` become `{}` (any value).
 */
export function inlineRefs(schema: unknown, options: { anyFor?: readonly SchemaName[] } = {}): JsonSchema {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const obj = node as Record<string, unknown>;
    if (typeof obj.$ref === 'string') {
      const name = obj.$ref.replace('#/components/schemas/', '') as SchemaName;
      const target = schemas[name];
      if (!target) throw new Error(`unknown schema reference ${obj.$ref}`);
      if (options.anyFor?.includes(name)) return {};
      return visit(target);
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj)) out[k] = visit(v);
    return out;
  };
  return visit(schema) as JsonSchema;
}
