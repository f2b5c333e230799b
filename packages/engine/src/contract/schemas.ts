/**
 * The wire contract: every request and response body as a JSON schema, declared once with TypeBox so
 * the TypeScript types are derived from the same objects (`Static<typeof X>`). The engine validates
 * request bodies with them (ajv, compiled once: validate.ts); the HTTP adapter validates, serialises
 * (fast-json-stringify) and publishes them (OpenAPI `components.schemas`) from the same record.
 *
 * Keep to the keyword subset that JSON Schema 2020-12 (OpenAPI 3.1), draft-07 (ajv) and
 * fast-json-stringify share. Cross references are `#/components/schemas/<Name>`; {@link inlineRefs}
 * resolves them for validators and serialisers. Limits come from limits.ts, never literals.
 *
 * Decisions settled here (ADR 0017): a `decimal` of the events wire is a JSON number or a decimal
 * string such as `"12.50"` (the spec's type is "decimal", and shops send money as strings); `null` is
 * not a value of an optional field of the search, bundle or key bodies (the events bodies, validated
 * field by field, keep counting `null` as absent).
 * @module
 */
import { Type, type Static, type TSchema, type SchemaOptions } from '@sinclair/typebox';
import { HMAC_SALT_LENGTH } from '../retail-media/hmac.js';
import { NumericScopeSchema, ScopeConditionSchema, TextNot, TextValues } from './scope-schema.js';
import { WebsiteSettingsSchema } from './settings-schema.js';
import { keptCustomerId } from './query-schemas.js';

export { NumericScopeSchema, ScopeConditionSchema, type ScopeCondition, type ScopeConditions } from './scope-schema.js';
import {
  DECIMAL_STRING_PATTERN, DEFAULT_SEARCH_SIZE, DEFAULT_SET_COUNT, MAX_BUNDLE_COUNT, MAX_COUPON_CODE_LENGTH, MAX_EVENTS_PER_REQUEST,
  MAX_PRODUCTS_PER_EVENT, MAX_PROMOTIONS_PER_EVENT, MAX_QUERY_LENGTH, MAX_RANGE_BOUNDS, MAX_BULK_DELETE_REFIDS, MAX_REQUEST_FIELDS, MAX_SEARCH_SIZE,
  MAX_SET_COUNT, MAX_VIEWS_PER_REQUEST, HIERARCHY_LIMITS, FACET_SEARCH_SIZE, MAX_ID_LENGTH, MAX_URL_LENGTH, MAX_DECIMAL, MAX_QUANTITY, MAX_HMAC_LENGTH, MAX_AD_SET_VERSION,
  MAX_EXPERIMENT_NAME_LENGTH, MAX_EXPERIMENT_VARIANTS, MAX_VARIANT_WEIGHT,
} from './limits.js';

/** A JSON schema object (loosely typed: these are data, checked by the OpenAPI validator test). */
export type JsonSchema = Record<string, unknown>;

const d = (description?: string): SchemaOptions => (description ? { description } : {});
const str = (description?: string) => Type.String(d(description));
const int = (description?: string) => Type.Integer(d(description));
const num = (description?: string) => Type.Number(d(description));
const bool = (description?: string) => Type.Boolean(d(description));
const strArray = (description?: string) => Type.Array(Type.String(), d(description));
const opt = Type.Optional;
/** A string of a closed set, as `enum` (not TypeBox's `anyOf` of constants: shorter errors and docs). */
const oneOf = <const T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...d(description) });
/** An object whose every value has one schema (`additionalProperties`, as the wire documents it). */
const dict = <T extends TSchema>(value: T, options: SchemaOptions = {}) =>
  Type.Unsafe<Record<string, Static<T>>>({ type: 'object', additionalProperties: value, ...options });
/** A reference to a component schema, typed as the schema it names. */
const ref = <T extends TSchema>(name: string, _schema: T, options: SchemaOptions = {}) =>
  Type.Unsafe<Static<T>>({ $ref: `#/components/schemas/${name}`, ...options });
/**
 * A decimal of the events wire: a JSON number or a decimal string such as `"12.50"`, from 0 to
 * `MAX_DECIMAL`. The description words the accepted forms (a failure of both forms quotes it).
 */
const decimal = () => Type.Unsafe<number | string>({
  anyOf: [{ type: 'number', minimum: 0, maximum: MAX_DECIMAL }, { type: 'string', pattern: DECIMAL_STRING_PATTERN, format: 'decimal' }],
  description: `a decimal number from 0 to ${MAX_DECIMAL} (a JSON number or a string such as "12.50")`,
});

/** A GUID of the events wire (any case; the engine stores it lower-cased). */
const guid = (description?: string) => Type.String({ format: 'guid', ...d(description) });
/** A non-blank string of the events wire, at most `max` UTF-16 code units, without NUL or unpaired surrogates. */
const text = (max: number, description?: string) => Type.String({ maxLength: max, pattern: '\\S', format: 'clean-text', ...d(description) });
/** A date-time of the events wire: ISO 8601, no offset = UTC, years 1970-9999. */
const eventTime = () => Type.String({ format: 'event-time', description: 'ISO 8601 date-time (no offset: UTC).' });

// ---- search -------------------------------------------------------------------------------------

/** The experiment and variant that served a response (docs/experiments.md). */
const ExperimentTagSchema = Type.Object({
  id: str('The experiment\'s id.'),
  variant: str('The variant\'s name; "interleaved" for an interleaving experiment (both rankings in one list).'),
}, { description: 'Present when the response was served by a running experiment to an assigned customer.' });

const ScopeSchema = dict(ScopeConditionSchema, {
  maxProperties: MAX_REQUEST_FIELDS,
  description: 'Filters by field: one condition per field, of the forms its schema describes; keys combine with AND.',
});

const SortSpec = Type.Object({ order: oneOf(['asc', 'desc'] as const), type: oneOf(['number', 'text'] as const) }, { additionalProperties: false });

const fieldList = (description: string) => Type.Array(Type.String(), { maxItems: MAX_REQUEST_FIELDS, description });

const SearchRequestSchema = Type.Object({
  session_id: opt(Type.String({
    minLength: 1, maxLength: MAX_ID_LENGTH, format: 'clean-text',
    description: 'Extension: the shopper\'s session. A search\'s session is this, else customer_id: search analytics count a search-as-you-type chain once per session, '
      + 'completions need distinct sessions, and the result page is remembered with it (clicks and conversions; docs/http-api.md).',
  })),
  // Ids and the query are stored (result lists, the search log): no NUL or unpaired surrogate, which a SQL store refuses.
  customer_id: opt(keptCustomerId(
    'Customer id; required when personalization is enabled for the website, and then the best results are re-ranked toward what this customer viewed and bought (same set, totals and facets).',
  )),
  website_id: Type.String({ minLength: 1 }),
  q: Type.String({ maxLength: MAX_QUERY_LENGTH, format: 'clean-text', description: 'Query text; "" matches every product (category browsing).' }),
  client: Type.String({ minLength: 1 }),
  start: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Offset of the first result.' }),
  size: opt(Type.Integer({
    minimum: 0, maximum: MAX_SEARCH_SIZE, default: DEFAULT_SEARCH_SIZE,
    description: `Maximum number of results (default ${DEFAULT_SEARCH_SIZE}, at most ${MAX_SEARCH_SIZE}).`,
  })),
  scope: opt(ref('Scope', ScopeSchema)),
  aggregations: opt(fieldList('Text fields for which a document count per value is returned.')),
  range_fields: opt(fieldList('Numeric fields for which min and max are returned.')),
  range_buckets: opt(dict(Type.Array(Type.Number(), { minItems: 1, maxItems: MAX_RANGE_BOUNDS }), {
    maxProperties: MAX_REQUEST_FIELDS,
    description: 'Per numeric field, strictly ascending bounds: payload.range_buckets.<field> counts the matches per band, '
      + 'every band listed (from inclusive, to exclusive; the first has no from, the last no to). The field\'s own scope '
      + 'condition is ignored when the field is in disjunctive_facets, else it applies.',
  })),
  disjunctive_facets: opt(fieldList('Fields whose aggregation counts ignore the field\'s own scope condition (other conditions still apply); '
    + 'each is aggregated even when aggregations does not name it.')),
  distinct: opt(bool('Variants: one result per product group (settings.distinct names the field). Default: on when the website\'s settings.distinct names a field; '
    + 'true without it answers 400. Each item then carries _variants.')),
  hierarchical_facets: opt(Type.Array(Type.String(), {
    maxItems: HIERARCHY_LIMITS.hierarchies,
    description: 'Names of the website\'s hierarchies (settings.hierarchies) to count: payload.hierarchical_aggregations.<name> lists the top '
      + 'level and the children of each node on the refined path (the paths of scope.<name>). The top level and the refined nodes\' '
      + 'siblings ignore the hierarchy\'s own scope condition; every other condition applies (docs/http-api.md, "Hierarchical facets").',
  })),
  facet_search: opt(Type.Object({
    field: Type.String({ minLength: 1, description: 'The field whose values are searched.' }),
    q: Type.String({ maxLength: MAX_QUERY_LENGTH, description: 'Words matched in order against a value\'s words, the last as a prefix; case-, accent- and typo-tolerant as search.' }),
    size: opt(Type.Integer({ minimum: 1, maximum: FACET_SEARCH_SIZE.max, default: FACET_SEARCH_SIZE.default, description: `Most hits (default ${FACET_SEARCH_SIZE.default}, at most ${FACET_SEARCH_SIZE.max}).` })),
  }, {
    additionalProperties: false,
    description: 'Searches the values of one field: payload.facet_hits, counted over the products matching the rest of the request '
      + '(the field\'s own scope condition ignored), zero counts left out, by count descending then value.',
  })),
  highlight: opt(bool('When true, each result item carries _highlight: {<field>: "HTML-escaped text with <em>matched</em> words"} for the text fields that matched.')),
  sort_fields: opt(Type.Array(dict(SortSpec, { minProperties: 1, maxProperties: 1 }), {
    maxItems: MAX_REQUEST_FIELDS,
    description: 'Ordered sort keys; each element has exactly one key, the field name, or the pseudo-field `_score` (relevance) to place relevance among the keys (otherwise it comes after them, before the website\'s tie-breakers).',
  })),
}, {
  // A field aisle does not read is refused, not ignored: an Algolia-style `filters` or a mistyped `Size` answered
  // as if absent. A name starting with `_` is the caller's own (tracking ids), never read (decision 0092).
  additionalProperties: false, patternProperties: { '^_': {} },
  description: 'The documented search request body. A top-level field it does not know is refused (400 naming it), '
    + 'except a name starting with _ (the caller\'s own, e.g. a tracking id), which is not read.',
});

const FacetBucketSchema = Type.Object({ key: str(), doc_count: int() });
const NumericRangeSchema = Type.Object({
  min: Type.Unsafe<number | null>({ type: ['number', 'null'] }),
  max: Type.Unsafe<number | null>({ type: ['number', 'null'] }),
});

const RangeBucketSchema = Type.Object({
  from: opt(num('Lower bound, inclusive (absent on the first bucket).')),
  to: opt(num('Upper bound, exclusive (absent on the last bucket).')),
  count: int(),
});

/** One node of `payload.hierarchical_aggregations.<name>` (its `children` are nodes again, to the hierarchy's depth). */
const HierarchyNodeSchema = Type.Object({
  value: str('The node\'s own level value.'),
  path: str('The levels from the top down to this node, joined by " > " (what scope.<name> takes).'),
  count: int('Products at or below the node.'),
  children: opt(Type.Array(Type.Unsafe<Record<string, unknown>>({ $ref: '#/components/schemas/HierarchyNode' }), {
    description: 'On the nodes of the refined path only: their children, by count descending then value, at most 100.',
  })),
});

/** One value of `payload.facet_hits`. */
const FacetHitSchema = Type.Object({
  value: str(), count: int(),
  highlighted: str('The value HTML-escaped, the parts matching the query in <em>…</em>.'),
});

const ProductFields = Type.Object({
  refId: str(),
  availability: opt(int('0 out of stock, -1 not tracked, >0 in stock.')),
  style_id: opt(str()),
  _highlight: opt(dict(str(), { description: 'Search with highlight: true only. Field → its HTML-escaped text with the matched words in <em>…</em>.' })),
  image_vector: opt(Type.Array(Type.Number())),
  _variants: opt(int('Distinct searches only: how many products of this result\'s group match the request, itself included.')),
}, { additionalProperties: true });
/** A product exactly as loaded: the fields the engine reads, plus any others (typed as open). */
const ProductSchema = Type.Unsafe<Static<typeof ProductFields> & { [field: string]: unknown }>({ ...ProductFields });

/** The id of one answered result list (search page, recommendation or bundle response); see docs/http-api.md, "Clicks". */
const resultListId = (description: string) => Type.String({ description });

/** The re-rank stages `settings.ranked_by` names, in the order they run (search/rerank.ts). */
export const RANK_STAGES = ['rules', 'clicks', 'personalization', 'semantic'] as const;

const SearchResponseSchema = Type.Object({
  type: int('1 on success.'),
  payload: Type.Object({
    result: Type.Array(ref('Product', ProductSchema), { description: 'The products of the page, each exactly as loaded.' }),
    total_results: int(),
    aggregations: opt(dict(Type.Array(ref('FacetBucket', FacetBucketSchema)))),
    ranges: opt(dict(ref('NumericRange', NumericRangeSchema))),
    range_buckets: opt(dict(Type.Array(ref('RangeBucket', RangeBucketSchema)), { description: 'Present when the request has range_buckets.' })),
    hierarchical_aggregations: opt(dict(Type.Array(ref('HierarchyNode', HierarchyNodeSchema)), {
      description: 'Present when the request has hierarchical_facets: per name, the top-level nodes (by count descending, then value; at most 100).',
    })),
    facet_hits: opt(Type.Array(ref('FacetHit', FacetHitSchema), { description: 'Present when the request has facet_search.' })),
    suggestions: Type.Object({
      corrected_query: opt(str('The query with each word that matched only by typo replaced by its best correction.')),
      dropped_words: opt(strArray('When no product matches every query word: the words the best result does not match (the results are the products matching the most words).')),
      queries: opt(strArray()),
    }),
    redirects: Type.Object({ url: opt(str()) }),
  }),
  // After payload: the adapter's serialiser writes the envelope up to the page first (codecs.ts).
  query_id: resultListId('Opaque id of this result page, unique per response: send it as queryId (with the 1-based position) in click events.'),
  settings: opt(Type.Object({
    ats_model: opt(str('The semantic model that ranked the results, as "id@version"; echo as atsModel in purchase products. Present only when a semantic model took part.')),
    ranked_by: opt(Type.Array(oneOf(RANK_STAGES), {
      description: 'What re-ranked the page, in the order the stages run (docs/learning.md): merchandising rules that pin or boost, '
        + 'click ranking, personalization, semantic search. Absent when nothing did.',
    })),
    experiment: opt(ref('ExperimentTag', ExperimentTagSchema)),
  }, { description: 'Present only when something re-ranked the results, or the search was served by an experiment.' })),
});

// ---- settings preview ---------------------------------------------------------------------------

const SettingsPreviewRequestSchema = Type.Object({
  search: opt(Type.Partial(Type.Omit(SearchRequestSchema, ['website_id', 'client']), {
    description: 'The search to rank, as the fields of POST /v1.4/search without website_id and client (the path\'s website and its client); '
      + 'q defaults to "" and start to 0. Unknown fields are ignored, as in a search.',
  })),
  settings: Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    description: 'A partial settings object merged over the stored settings as PATCH …/settings merges it (JSON Merge Patch, RFC 7396: '
      + 'null removes a key) and validated as that PATCH is; nothing is stored. Its keys are those of WebsiteSettings.',
  }),
}, { additionalProperties: false, description: 'A ranking preview: one search under the settings in force and under them with a change merged in.' });

const PreviewRankingSchema = Type.Object({
  total_results: int(),
  result: Type.Array(ref('Product', ProductSchema), { description: 'The products of the page in ranked order, each exactly as loaded.' }),
  redirect: opt(str('The redirect URL the settings give the query (payload.redirects.url of the search).')),
});

const SettingsPreviewSchema = Type.Object({
  before: ref('PreviewRanking', PreviewRankingSchema, { description: 'The page under the settings in force.' }),
  after: ref('PreviewRanking', PreviewRankingSchema, { description: 'The same page under the settings with the change merged in.' }),
  moves: Type.Array(Type.Object({
    refId: str(),
    before: Type.Union([int(), Type.Null()], { description: '1-based position before the change (null: not on the page).' }),
    after: Type.Union([int(), Type.Null()], { description: '1-based position after the change (null: not on the page).' }),
  }), { description: 'Every product on either page: those of the page after the change in its order, then those that left the page.' }),
}, { description: 'The ranking of one search before and after a settings change; nothing was stored, logged or counted.' });

// ---- errors -------------------------------------------------------------------------------------

const ErrorEnvelopeSchema = Type.Object({
  type: int('Always -1.'), code: int('The HTTP status.'), message: str(),
}, { description: 'Error body of search, recommendation, bundle, coupon and unmatched paths: a negative type, the HTTP status as code, and a message.' });

/** A product value that does not fit its field's pinned type (`settings.fields`). */
const FieldMismatchSchema = Type.Object({
  line: opt(int('1-based NDJSON line or array element of the record (loads and patches).')),
  refId: str(), field: str(), value: Type.Unknown({ description: 'The value as given.' }), message: str(),
});

const ProblemDetailsSchema = Type.Object({
  type: str('URL of the HTTP status definition.'),
  title: str(),
  status: int(),
  errors: dict(strArray(), { description: 'Messages keyed by property path; "$" is the request as a whole.' }),
  traceId: str('W3C traceparent form.'),
  records: opt(Type.Array(FieldMismatchSchema, {
    description: 'Products whose values do not fit their fields\' pinned types: those of a load or patch refused '
      + 'with onError=reject (400), or stored products a settings change would no longer fit (409); at most 100.',
  })),
}, { description: 'RFC 7807 problem details (purchase, view and admin endpoints).' });

// ---- recommendations ----------------------------------------------------------------------------

const retailMediaFields = {
  adSetId: str(), adSetVersion: int(), costPerClick: opt(num()), costPerAction: opt(num()), costPerMille: opt(num()),
  timeStamp: str(), hmacSalt: str(), hmac: str(), bannerId: opt(str()), placementId: opt(str()),
};
const RetailMediaSlotSchema = Type.Object(retailMediaFields, {
  description: 'Retail-media data of a sponsored slot; echo it unchanged in the purchase product object.',
});
const RetailBoostSchema = Type.Object({ retailBoostCollectionCampaignId: str() });

const RecommendationSlotSchema = Type.Object({
  refId: str(), tacticLabel: str(), tacticId: str(),
  retailMedia: opt(ref('RetailMediaSlot', RetailMediaSlotSchema)),
  retailBoost: opt(RetailBoostSchema),
});

const RecommendResponseSchema = Type.Object({
  type: int('1 on success.'),
  code: int('0 on success.'),
  payload: strArray('Product reference ids.'),
  slots: Type.Array(ref('RecommendationSlot', RecommendationSlotSchema), { description: 'One per payload entry, same order.' }),
  recommenderId: str(),
  queryId: resultListId('Opaque id of this response: send it as queryId (with the 1-based position in payload) in click events.'),
  experiment: opt(ref('ExperimentTag', ExperimentTagSchema)),
});

const BundleRequestSchema = Type.Object({
  product_ref_ids: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: MAX_BUNDLE_COUNT, description: `RefIds every bundle contains; repeats count once, at most ${MAX_BUNDLE_COUNT - 1} distinct (a bundle has at most ${MAX_BUNDLE_COUNT} items).` }),
  setCount: opt(Type.Integer({
    minimum: 1, maximum: MAX_SET_COUNT, default: DEFAULT_SET_COUNT,
    description: `Number of bundles (default ${DEFAULT_SET_COUNT}, at most ${MAX_SET_COUNT}).`,
  })),
  count: opt(Type.Integer({
    minimum: 2, maximum: MAX_BUNDLE_COUNT,
    description: `Items per bundle including the inputs (default 1 + number of distinct product_ref_ids, larger than that number, at most ${MAX_BUNDLE_COUNT}).`,
  })),
  filter_out_of_stock: opt(bool()),
});

const BundleResponseSchema = Type.Object({
  type: int(), code: int(),
  payload: Type.Array(strArray(), { description: 'A list of bundles, each a list of RefIds.' }),
  recommenderId: str(),
  queryId: resultListId('Opaque id of this response: send it as queryId in click events; positions count the RefIds of every bundle in order (1-based).'),
});

// ---- events -------------------------------------------------------------------------------------

/** The retail-media fields of a purchased product, as echoed from the slot (costs as decimals). */
const purchaseRetailMediaFields = {
  adSetId: guid(), adSetVersion: Type.Integer({ minimum: 0, maximum: MAX_AD_SET_VERSION }),
  costPerClick: opt(decimal()), costPerAction: opt(decimal()), costPerMille: opt(decimal()),
  timeStamp: eventTime(),
  hmacSalt: Type.String({ minLength: HMAC_SALT_LENGTH, maxLength: HMAC_SALT_LENGTH, pattern: '\\S', format: 'clean-text' }),
  hmac: text(MAX_HMAC_LENGTH), bannerId: opt(guid()), placementId: opt(guid()),
};
/** A schema requiring `names` (present, of any type: the enclosing schema types them). */
const presentFields = (names: readonly string[]) => ({ properties: Object.fromEntries(names.map((n) => [n, {}])), required: [...names] });
/** The fields a product sending any flat retail-media field must send too. */
const RETAIL_MEDIA_REQUIRED = ['adSetId', 'adSetVersion', 'timeStamp', 'hmacSalt', 'hmac'];
const PurchaseRetailMediaSchema = Type.Object(purchaseRetailMediaFields);

/** The attribution fields of a product line: plain strings, identical on the wire and in the store. */
export const PurchaseLineFieldsSchema = Type.Object({
  refId: text(MAX_ID_LENGTH), quantity: Type.Integer({ minimum: 1, maximum: MAX_QUANTITY }),
  routeId: opt(guid()), widgetId: opt(guid()), recommenderId: opt(guid()), campaignId: opt(guid()), tacticId: opt(guid()), clickId: opt(guid()),
  referralUrl: opt(text(MAX_URL_LENGTH)), tacticLabel: opt(text(MAX_ID_LENGTH)), atsModel: opt(text(MAX_ID_LENGTH)), supplierId: opt(guid()),
  retailBoostCollectionCampaignId: opt(guid()),
});

const PurchaseProductSchema = Type.Object({
  ...PurchaseLineFieldsSchema.properties,
  price: decimal(),
  ...Type.Partial(PurchaseRetailMediaSchema).properties,
  retailMedia: opt(Type.Object(purchaseRetailMediaFields, { description: 'The slot\'s retail-media object, instead of the flat fields (not both).' })),
  retailBoost: opt(Type.Object({ retailBoostCollectionCampaignId: guid() }, { description: 'The slot\'s retailer-boost object, instead of the flat field.' })),
}, {
  // Any flat retail-media field brings the others that signing needs.
  // (each sub-schema names its required properties, as OpenAPI linters ask; the types are the product's).
  if: { anyOf: Object.keys(purchaseRetailMediaFields).map((name) => presentFields([name])) },
  then: presentFields(RETAIL_MEDIA_REQUIRED),
});

const PurchaseEventSchema = Type.Object({
  currentUrl: text(MAX_URL_LENGTH), eventTime: eventTime(), orderId: text(MAX_ID_LENGTH),
  paymentMethod: opt(text(MAX_ID_LENGTH)), currencyCode: opt(Type.String({ format: 'currency-code' })),
  products: Type.Array(ref('PurchaseProduct', PurchaseProductSchema), { minItems: 1, maxItems: MAX_PRODUCTS_PER_EVENT }),
  priceBeatPromotions: opt(Type.Array(
    Type.Object({ code: text(MAX_COUPON_CODE_LENGTH), discount: decimal() }),
    { maxItems: MAX_PROMOTIONS_PER_EVENT },
  )),
  recommenderId: opt(guid()), campaignId: opt(guid()), tacticId: opt(guid()),
});

const PurchaseRequestSchema = Type.Object({
  customerId: guid(), sessionId: guid(),
  events: Type.Array(ref('PurchaseEvent', PurchaseEventSchema), { minItems: 1, maxItems: MAX_EVENTS_PER_REQUEST }),
}, { description: 'The purchase body in the spec\'s camelCase (the engine also accepts PascalCase names, and null as absent).' });

/** The result-list fields of a click or view: the `query_id`/`queryId` of the list and the 1-based position in it. */
const resultListFields = {
  queryId: opt(text(MAX_ID_LENGTH, 'The query_id (search) or queryId (recommendation, bundle) of the list the product was shown in.')),
  position: opt(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: '1-based rank of the product in the whole result list (required with queryId).' })),
};
/** With a queryId, the position is required (the list is checked to have held the refId there). */
const positionWithQueryId = { if: presentFields(['queryId']), then: presentFields(['position']) };

const ViewEventSchema = Type.Object({
  currentUrl: text(MAX_URL_LENGTH), eventTime: eventTime(), refId: text(MAX_ID_LENGTH),
  referralUrl: opt(text(MAX_URL_LENGTH)), recommenderId: opt(guid()), tacticId: opt(guid()), clickId: opt(guid()),
  ...resultListFields,
}, positionWithQueryId);

/** What a click event records: a click on a result, or an add-to-cart from it. */
export const CLICK_TYPES = ['click', 'addToCart'] as const;

const ClickEventSchema = Type.Object({
  eventTime: eventTime(), refId: text(MAX_ID_LENGTH), type: oneOf(CLICK_TYPES),
  ...resultListFields,
  clickId: opt(guid('Idempotency key: a click whose clickId was already recorded for the website is accepted and not stored again; a purchased product of the same refId naming it is attributed to this click (one naming a click on another product converts as without a clickId).')),
  recommenderId: opt(guid()), tacticId: opt(guid()),
}, positionWithQueryId);

const ClickRequestSchema = Type.Object({
  customerId: guid(), sessionId: guid(),
  events: Type.Array(ref('ClickEvent', ClickEventSchema), { minItems: 1, maxItems: MAX_EVENTS_PER_REQUEST }),
}, { description: 'Clicks and add-to-carts on results (extension), validated like purchases.' });

const ViewRequestSchema = Type.Object({
  customerId: guid(), sessionId: guid(),
  events: Type.Array(ref('ViewEvent', ViewEventSchema), { minItems: 1, maxItems: MAX_VIEWS_PER_REQUEST }),
});

const EventAckSchema = Type.Object({ transactionId: str(), status: oneOf(['Accepted'] as const) });

const CouponUsedSchema = Type.Object({
  type: int('1.'), code: int('0.'),
  payload: Type.Object({ code: str(), websiteId: str(), usedAt: str() }),
}, { description: 'Body of a successful coupon call (the spec leaves it open).' });

// ---- admin --------------------------------------------------------------------------------------

const LoadSummarySchema = Type.Object({
  loaded: int(),
  skipped: Type.Array(Type.Object({
    line: int(), message: str(),
    refId: opt(str()), field: opt(str()), value: opt(Type.Unknown()),
  }, { description: 'A record skipped; a value not fitting its field\'s pinned type also names refId, field and value.' })),
  skippedCount: int(),
  strayValues: opt(Type.Array(
    Type.Object({ field: str(), count: int(), refIds: strArray() }),
    { description: 'Values of a numeric field that are not numbers (e.g. "N/A"): kept, missing for ranges and number sorts.' },
  )),
  catalogSize: int(),
});

const DeleteResultSchema = Type.Object({ deleted: int(), catalogSize: int() });

const BulkDeleteRequestSchema = Type.Object({
  refIds: opt(Type.Array(Type.String({ minLength: 1 }), {
    minItems: 1, maxItems: MAX_BULK_DELETE_REFIDS, description: `The products to delete (1 to ${MAX_BULK_DELETE_REFIDS} refIds).`,
  })),
  scope: opt(ref('Scope', ScopeSchema, { description: 'Deletes every product the scope selects (same syntax as the search request\'s scope; not empty).' })),
}, { additionalProperties: false, description: 'Exactly one of refIds and scope.' });

const BulkDeleteResultSchema = Type.Object({
  deleted: int('Products deleted.'),
  notFound: strArray('The refIds asked for that the catalog did not hold (always empty for a scope).'),
});

const CouponIssueSchema = Type.Object({
  // Stored as sent: no NUL or unpaired surrogate (`clean-text`), which a SQL store refuses or rewrites.
  code: Type.String({ minLength: 1, maxLength: MAX_COUPON_CODE_LENGTH, format: 'clean-text' }), customerId: opt(Type.String({ format: 'clean-text' })), discount: opt(decimal()),
}, { additionalProperties: false });
const CouponIssueRequestSchema = Type.Object({ coupons: Type.Array(CouponIssueSchema) });
const CouponIssueResultSchema = Type.Object({ issued: int() });

const WebsiteStatsSchema = Type.Object({
  websiteId: str(), products: int(), views: int(), purchases: int(), orders: int(),
  coupons: Type.Object({ issued: int(), used: int() }),
});

const AttributionLineSchema = Type.Object({ key: str(), revenue: num(), orders: int(), units: num() });

const QueryCountSchema = Type.Object({ query: str(), count: int() });

const SearchReportSchema = Type.Object({
  websiteId: str(), from: opt(str()), to: opt(str()),
  top: Type.Array(
    Type.Object({
      query: str(), count: int('Searches; a search-as-you-type chain of a session counts once, as its last query.'),
      avgResults: num(), clicks: int('Click events on their results.'), ctr: num('Searches with at least one click / searches.'),
      avgClickPosition: Type.Union([num(), Type.Null()], { description: 'Mean 1-based position of the clicks (null without clicks).' }),
      conversions: int('Attributed purchase lines.'), conversionRate: num('Searches with at least one attributed purchase / searches.'),
      revenue: num('Attributed revenue.'),
    }),
    { description: 'Most searched normalised queries (count descending, then query), with the mean number of results, clicks and conversions.' },
  ),
  noResults: Type.Array(QueryCountSchema, { description: 'Queries whose searches found nothing, by the number of such searches.' }),
  noClicks: Type.Array(QueryCountSchema, { description: 'Queries whose searches found something and got no click, by the number of such searches.' }),
});

const RecommendationReportSchema = Type.Object({
  websiteId: str(), from: opt(str()), to: opt(str()),
  methods: Type.Array(Type.Object({
    method: str(), served: int('Responses with at least one item.'), items: int('RefIds served.'), clicks: int(),
    ctr: Type.Union([num(), Type.Null()], { description: 'Served responses with at least one click / served; null when none was served in the window (0 of 0 is no rate).' }),
    conversions: int(), revenue: num(),
    tactics: Type.Array(Type.Object({
      tactic: str('The tacticLabel of the items.'), items: int(), clicks: int(), ctr: Type.Union([num(), Type.Null()], { description: 'Clicks / items; null when no item was served in the window.' }), conversions: int(), revenue: num(),
    }), { description: 'By items descending.' }),
  }), { description: 'By served descending, then method.' }),
});

const attributionLines = (description?: string) => Type.Array(ref('AttributionLine', AttributionLineSchema), d(description));
/** Where a clicked result list came from. */
export const RESULT_LIST_KINDS = ['search', 'recommendation'] as const;
const ClickPositionLineSchema = Type.Object({
  kind: oneOf(RESULT_LIST_KINDS), position: int('1-based rank of the clicked product in its result list.'), revenue: num(), orders: int(), units: num(),
});
const AttributionReportSchema = Type.Object({
  websiteId: str(), from: opt(str()), to: opt(str()),
  currency: Type.Union([str(), Type.Null()], {
    description: 'The currency of every money figure (settings.currency, upper-cased); null while the website has none, and then only purchases '
      + 'stating no currencyCode are added.',
  }),
  otherCurrencies: Type.Array(Type.Object({ currency: str(), orders: int(), units: num(), revenue: num(), attributedRevenue: num() }), {
    description: 'Purchases in another currency, per currency (by currency code): their orders and units count in the figures above, their money only here.',
  }),
  totals: Type.Object({
    revenue: num(), orders: int(), units: num(), attributedRevenue: num(),
    clickAttributedRevenue: num('Revenue of the lines converted from a click on a search or recommendation result (docs/http-api.md, "Clicks").'),
  }),
  byRecommender: attributionLines(), byWidget: attributionLines(), byCampaign: attributionLines(), byTactic: attributionLines(), byAtsModel: attributionLines(),
  bySearchQuery: attributionLines('Lines converted from a click on a search result, by normalised query.'),
  byRecommendationMethod: attributionLines('Lines converted from a click on a recommendation or bundle, by method (canonical spelling; "bundle").'),
  byClickPosition: Type.Array(ClickPositionLineSchema, { description: 'Converted lines by the kind of list and the position of the click that led to them.' }),
  retailMedia: Type.Array(Type.Object({ adSetId: str(), units: num(), revenue: num(), spend: num(), clicksCost: num(), milleCost: num(), flagged: int() })),
  priceBeat: Type.Array(Type.Object({ code: str(), discount: num(), orders: int(), reused: int() })),
  flagged: Type.Array(Type.Object({ orderId: str(), refId: str(), reason: str() })),
});

/** What a browser key may open: `search` (POST /v1.4/search), `insights` (POST /3.0/events/clicks). */
export const KEY_ACTIONS = ['search', 'insights'] as const;

const SearchKeyRequestSchema = Type.Object({
  actions: Type.Array(oneOf(KEY_ACTIONS), { minItems: 1, description: 'What the key opens: "search" (searches), "insights" (click events), or both.' }),
  expiresAt: opt(Type.String({ format: 'event-time', description: 'When the key stops working (ISO 8601 with a zone, Z or an offset; in the future). Absent: never.' })),
  scope: opt(ref('Scope', ScopeSchema, { description: 'Forced scope ANDed with every request made with the key (the caller cannot widen it).' })),
}, { additionalProperties: false, description: 'A browser search key to create.' });

const searchKeyFields = {
  id: str('Public id (accepted by DELETE …/keys/{key} instead of the key).'),
  websiteId: str(),
  keyPrefix: str('The first characters of the key, to recognise it.'),
  actions: strArray(),
  scope: opt(ref('Scope', ScopeSchema)),
  expiresAt: opt(str('ISO 8601.')),
  createdAt: str('ISO 8601.'),
  expired: bool('True once expiresAt has passed (an expired key opens nothing).'),
};
const SearchKeySchema = Type.Object(searchKeyFields, { description: 'A search key as listed; the key itself is shown only once, when created.' });
const CreatedSearchKeySchema = Type.Object(
  { key: str('The key: send it as `Authorization: Bearer <key>` to POST /v1.4/search.'), ...searchKeyFields },
  { description: 'A key just created: the listed fields plus `key`, shown this once (only its SHA-256 is stored).' },
);
const SearchKeyListSchema = Type.Object({ keys: Type.Array(ref('SearchKey', SearchKeySchema)) });

// ---- experiments -------------------------------------------------------------------------------

// Stored (PostgreSQL refuses a NUL, and an unpaired surrogate in JSON), read by people in the dashboard and
// logs, and a variant's name keys the stored roll-ups: `display-name`, no control character of any kind.
const experimentName = (description: string) => Type.String({ minLength: 1, maxLength: MAX_EXPERIMENT_NAME_LENGTH, pattern: '\\S', format: 'display-name', description });

const VariantRequestSchema = Type.Object({
  name: experimentName('Unique within the experiment; "interleaved" is reserved.'),
  weight: opt(Type.Number({ exclusiveMinimum: 0, maximum: MAX_VARIANT_WEIGHT, description: 'Relative share of the traffic (default 1): weight / sum of weights.' })),
  settings: opt(Type.Object({}, {
    additionalProperties: true,
    description: 'Search variants (not the control): settings merged over the website\'s current settings as a settings PATCH merges (RFC 7396), '
      + 'validated as settings are; any runtime setting but fields.',
  })),
  recommendations: opt(dict(Type.Object({
    tactics: Type.Array(Type.String(), { minItems: 1, maxItems: 20, description: 'Tactic labels as responses carry them in slots[].tacticLabel, in cascade order.' }),
  }, { additionalProperties: false }), {
    minProperties: 1, maxProperties: 17,
    description: 'Recommendation variants (not the control): per method (its path segment), the cascade that replaces the method\'s.',
  })),
}, { additionalProperties: false });

const ExperimentRequestSchema = Type.Object({
  name: experimentName('A name for people.'),
  kind: oneOf(['search', 'recommendations'] as const, 'What the experiment varies.'),
  method: opt(oneOf(['ab', 'interleaving'] as const, 'ab (default): each customer sees one variant; interleaving (search, two variants): every response interleaves both rankings.')),
  variants: Type.Array(VariantRequestSchema, { minItems: 2, maxItems: MAX_EXPERIMENT_VARIANTS, description: 'The first is the control: the website\'s current configuration.' }),
  from: opt(Type.String({ format: 'date-time', description: 'Assignment starts (ISO 8601); default: now.' })),
  until: opt(Type.String({ format: 'date-time', description: 'Assignment ends (ISO 8601, after from and in the future); default: when stopped.' })),
}, { additionalProperties: false, description: 'An experiment to start (docs/experiments.md).' });

const experimentFields = {
  id: str(), name: str(), kind: oneOf(['search', 'recommendations'] as const), method: oneOf(['ab', 'interleaving'] as const),
  status: oneOf(['scheduled', 'running', 'stopped'] as const, 'scheduled before from; stopped once stopped or past until.'),
  from: str('ISO 8601: when assignment starts.'),
  until: opt(str('ISO 8601: when assignment ends (the stop time once stopped).')),
  createdAt: str('ISO 8601.'),
};

const ExperimentSchema = Type.Object({
  ...experimentFields,
  variants: Type.Array(Type.Object({
    name: str(), weight: num(),
    settings: opt(Type.Object({}, { additionalProperties: true })),
    recommendations: opt(dict(Type.Object({ tactics: strArray() }))),
  })),
}, { description: 'An experiment as defined.' });

const ExperimentListSchema = Type.Object({ experiments: Type.Array(ref('Experiment', ExperimentSchema)) });

/** A number, or null where it cannot be computed (the comparison's `note` says why: decision 0073). */
const numOrNull = (description: string) => Type.Unsafe<number | null>({ type: ['number', 'null'], description });
const EstimateSchema = Type.Object({
  value: numOrNull('The estimate; null while the variant has no users (or, for a rate, no searches or lists served).'),
  low: numOrNull('95 % interval, lower end; null with the value, and for a per-user mean of a single user.'),
  high: numOrNull('95 % interval, upper end; null as low.'),
  interval: str('The interval\'s method, by name: "Wilson score interval on the effective number of searches (per-user design effect; 95 %)" for ctr, "Wilson score interval (95 %)" for conversionRate, "Student\'s t interval of the mean (95 %)" for revenuePerUser.'),
}, { description: 'A variant\'s own figure with its 95 % interval: null where there is nothing to estimate from (decision 0076), never 0 with an interval of no width.' });
const ComparisonSchema = Type.Object({
  relativeDifference: numOrNull('(variant − control) / control; null when the control\'s value is 0 or a side has under 2 users.'),
  low: numOrNull('95 % interval of relativeDifference, lower end; null where it cannot be computed.'),
  high: numOrNull('Upper end; null where it cannot be computed or has no upper bound.'),
  interval: str('The method of low and high, by name: the delta method on the log ratio (with Student\'s t on Welch\'s degrees of freedom for means), or MOVER-R where the log ratio has no interval; where they are null, the method that had nothing to compute from.'),
  pValue: numOrNull('Two-sided; null where the test is not defined (no variance, a side with under 2 users).'),
  test: str('The test, by name.'),
  significant: bool('pValue < 0.05, relativeDifference not null and every variant has this metric\'s minUsers (fixed horizon).'),
  note: opt(str('Why a figure is null, or the interval method used where the log-ratio one is not defined (MOVER-R); absent otherwise.')),
});
const usersNeeded = (description: string) => Type.Unsafe<number | null>({ type: ['integer', 'null'], description });

const VariantReportSchema = Type.Object({
  name: str(), weight: num(),
  users: int('Assigned customers with at least one counted search or list served.'),
  searches: opt(int('Search experiments: searches (search-as-you-type chains once).')),
  served: opt(int('Recommendation experiments: lists served.')),
  clicks: int(), ctr: ref('Estimate', EstimateSchema, { description: 'Searches (or lists served) with at least one click / searches, over every user of the variant; vsControl.ctr compares this same figure.' }), conversions: int('Attributed purchase lines.'),
  conversionRate: ref('Estimate', EstimateSchema), revenue: num('Attributed revenue.'), revenuePerUser: ref('Estimate', EstimateSchema),
  vsControl: opt(Type.Object({
    ctr: ref('Comparison', ComparisonSchema), conversionRate: ref('Comparison', ComparisonSchema), revenuePerUser: ref('Comparison', ComparisonSchema),
  }, { description: 'Every variant but the control.' })),
  tactics: opt(Type.Array(Type.Object({ tactic: str(), served: int('Items served.'), clicks: int(), conversions: int(), revenue: num() }), {
    description: 'Recommendation experiments: per tactic label.',
  })),
});

const ExperimentReportSchema = Type.Object({
  ...experimentFields,
  minUsers: Type.Object({
    ctr: usersNeeded('Users per variant to detect a 10 % relative CTR difference at 80 % power (from the control\'s CTR); null while it has none.'),
    conversionRate: usersNeeded('The same for the conversion rate (and revenue per user).'),
  }),
  variants: Type.Array(ref('VariantReport', VariantReportSchema), { description: 'A/B experiments.' }),
  interleaving: opt(Type.Object({
    credits: dict(int(), { description: 'Per variant: clicks on the items its ranking placed.' }),
    users: int('Customers with a counted interleaved search.'),
    preferring: dict(int(), { description: 'Per variant: customers whose clicks credited it more.' }),
    preferred: Type.Unsafe<string | null>({ type: ['string', 'null'], description: 'The variant preferred when pValue < 0.05, else null.' }),
    pValue: numOrNull('The sign test\'s p-value; null while no customer prefers either variant (note says so).'), test: str(),
    note: opt(str('Why pValue is null; absent otherwise.')),
  }, { description: 'Interleaving experiments (replaces the per-variant metrics: variants is empty).' })),
}, { description: 'An experiment with its report (docs/experiments.md).' });

const HealthSchema = Type.Object({
  status: oneOf(['ok', 'ready', 'not ready'] as const),
  checks: opt(Type.Array(
    Type.Object({ name: str(), ok: bool(), reason: opt(str()) }),
    { description: 'Readiness only: each check (listener, store, disk, recommendations) with the reason when it fails.' },
  )),
});

/** The component schemas of the contract, by name (the adapter publishes them as OpenAPI `components.schemas`). */
export const schemas = {
  Scope: ScopeSchema,
  SearchRequest: SearchRequestSchema,
  FacetBucket: FacetBucketSchema,
  NumericRange: NumericRangeSchema,
  RangeBucket: RangeBucketSchema,
  HierarchyNode: HierarchyNodeSchema,
  FacetHit: FacetHitSchema,
  SearchResponse: SearchResponseSchema,
  ErrorEnvelope: ErrorEnvelopeSchema,
  ProblemDetails: ProblemDetailsSchema,
  RetailMediaSlot: RetailMediaSlotSchema,
  RecommendationSlot: RecommendationSlotSchema,
  RecommendResponse: RecommendResponseSchema,
  BundleRequest: BundleRequestSchema,
  BundleResponse: BundleResponseSchema,
  PurchaseProduct: PurchaseProductSchema,
  PurchaseEvent: PurchaseEventSchema,
  PurchaseRequest: PurchaseRequestSchema,
  ViewEvent: ViewEventSchema,
  ViewRequest: ViewRequestSchema,
  ClickEvent: ClickEventSchema,
  ClickRequest: ClickRequestSchema,
  EventAck: EventAckSchema,
  CouponUsed: CouponUsedSchema,
  Product: ProductSchema,
  LoadSummary: LoadSummarySchema,
  DeleteResult: DeleteResultSchema,
  BulkDeleteRequest: BulkDeleteRequestSchema,
  BulkDeleteResult: BulkDeleteResultSchema,
  CouponIssueRequest: CouponIssueRequestSchema,
  CouponIssueResult: CouponIssueResultSchema,
  WebsiteStats: WebsiteStatsSchema,
  AttributionLine: AttributionLineSchema,
  WebsiteSettings: WebsiteSettingsSchema,
  SettingsPreviewRequest: SettingsPreviewRequestSchema,
  PreviewRanking: PreviewRankingSchema,
  SettingsPreview: SettingsPreviewSchema,
  SearchReport: SearchReportSchema,
  RecommendationReport: RecommendationReportSchema,
  AttributionReport: AttributionReportSchema,
  SearchKeyRequest: SearchKeyRequestSchema,
  SearchKey: SearchKeySchema,
  CreatedSearchKey: CreatedSearchKeySchema,
  SearchKeyList: SearchKeyListSchema,
  ExperimentTag: ExperimentTagSchema,
  ExperimentRequest: ExperimentRequestSchema,
  Experiment: ExperimentSchema,
  ExperimentList: ExperimentListSchema,
  Estimate: EstimateSchema,
  Comparison: ComparisonSchema,
  VariantReport: VariantReportSchema,
  ExperimentReport: ExperimentReportSchema,
  Health: HealthSchema,
} as const;

/** The name of one component schema. */
export type SchemaName = keyof typeof schemas;

/** The TypeScript type of a component schema's values. */
export type WireType<N extends SchemaName> = Static<(typeof schemas)[N]>;

/**
 * Returns a deep copy of `schema` with every `#/components/schemas/<Name>` reference replaced by the
 * schema itself, for ajv and fast-json-stringify. References to the schemas named in `anyFor` become
 * `{}` (any value), and so does a reference met again within its own schema (`HierarchyNode`'s
 * children are nodes: the first level is inlined, deeper levels are any value).
 */
export function inlineRefs(schema: unknown, options: { anyFor?: readonly SchemaName[] } = {}): JsonSchema {
  const within = new Set<string>();
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const obj = node as Record<string, unknown>;
    if (typeof obj.$ref === 'string') {
      const name = obj.$ref.replace('#/components/schemas/', '') as SchemaName;
      const target = schemas[name];
      if (!target) throw new Error(`unknown schema reference ${obj.$ref}`);
      if (options.anyFor?.includes(name) || within.has(name)) return {};
      const { $ref: _ref, ...siblings } = obj;
      within.add(name);
      const inlined = visit(target) as object;
      within.delete(name);
      return { ...inlined, ...siblings };
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj)) out[k] = visit(v);
    return out;
  };
  return visit(schema) as JsonSchema;
}

// ---- derived types --------------------------------------------------------------------------------

/** A numeric scope condition (inclusive bounds; `not` is aisle's exclusion extension). */
export type NumericScope = Static<typeof NumericScopeSchema>;
/** A text scope condition: a list of accepted values, or aisle's `{not: [...]}` exclusion extension. */
export type TextScope = Static<typeof TextValues> | Static<typeof TextNot>;
/** One `sort_fields` element: `{ <field>: { order, type } }`. */
export type SortFieldSpec = Record<string, Static<typeof SortSpec>>;
/** The documented search request body (`POST /v1.4/search`). */
export type SearchRequest = WireType<'SearchRequest'>;
/** The body of `POST …/settings/preview`. */
export type SettingsPreviewRequest = WireType<'SettingsPreviewRequest'>;
/** One side of a settings preview: a page of ranked products. */
export type PreviewRanking = WireType<'PreviewRanking'>;
/** The answer of `POST …/settings/preview`. */
export type SettingsPreview = WireType<'SettingsPreview'>;
/** One facet bucket of `payload.aggregations.<field>`. */
export type FacetBucket = WireType<'FacetBucket'>;
/** `payload.ranges.<field>`; both null when no matching product has a value. */
export type NumericRange = WireType<'NumericRange'>;
/** The body of `POST …/products/delete`: `{refIds}` or `{scope}`. */
export type BulkDeleteRequest = WireType<'BulkDeleteRequest'>;
/** The answer of a bulk delete. */
export type BulkDeleteResult = WireType<'BulkDeleteResult'>;
/** One bucket of `payload.range_buckets.<field>`. */
export type RangeBucket = WireType<'RangeBucket'>;
/** One node of a hierarchical aggregation. */
export type HierarchyNode = Omit<WireType<'HierarchyNode'>, 'children'> & { children?: HierarchyNode[] };
/** One facet-search hit. */
export type FacetHit = WireType<'FacetHit'>;
/** The documented search response. */
export type SearchResponse = WireType<'SearchResponse'>;
/** The payload of a successful search response. */
export type SearchPayload = SearchResponse['payload'];
/** Retail-media data carried by a sponsored slot and echoed in purchase events. */
export type RetailMediaSlotData = WireType<'RetailMediaSlot'>;
/** One slot of a recommendation response, in the same order as `payload`. */
export type RecommendationSlot = WireType<'RecommendationSlot'>;
/** The documented recommendation response, with aisle's `slots` and `recommenderId`. */
export type RecommendResponse = WireType<'RecommendResponse'>;
/** The bundle request body (`POST …/bundle`). */
export type BundleRequest = WireType<'BundleRequest'>;
/** The bundle response: `payload` is a list of bundles, each a list of RefIds. */
export type BundleResponse = WireType<'BundleResponse'>;
/** A decimal on the events wire: a JSON number, or a string such as `"12.50"`. */
export type WireDecimal = number | string;
/** Retail-media data of a purchased product, echoed from the sponsored slot it was clicked in. */
export type PurchaseRetailMedia = Static<typeof PurchaseRetailMediaSchema>;
/** The attribution fields of a product line (identical on the wire and in the store). */
export type PurchaseLineFields = Static<typeof PurchaseLineFieldsSchema>;
/** One product line of a purchase event. */
export type PurchaseProductBody = WireType<'PurchaseProduct'>;
/** One purchase event (one order) of a purchase request. */
export type PurchaseEventBody = WireType<'PurchaseEvent'>;
/**
 * The purchase request body (`POST {events_url}/3.0/events/purchases`), in the spec's camelCase. The
 * engine validates every body at run time (PascalCase names are accepted too, `null` counts as absent).
 */
export type PurchaseRequest = WireType<'PurchaseRequest'>;
/** One view event of a views request. */
export type ViewEventBody = WireType<'ViewEvent'>;
/** The views request body (extension `POST {events_url}/3.0/events/views`); validated like purchases. */
export type ViewRequest = WireType<'ViewRequest'>;
/** One event of a clicks request. */
export type ClickEventBody = WireType<'ClickEvent'>;
/** The clicks request body (extension `POST {events_url}/3.0/events/clicks`); validated like purchases. */
export type ClickRequest = WireType<'ClickRequest'>;
/** Where a clicked result list came from: a search page, or a recommendation or bundle response. */
export type ResultListKind = (typeof RESULT_LIST_KINDS)[number];
/** `click` or `addToCart`. */
export type ClickType = (typeof CLICK_TYPES)[number];
/** The acknowledgement of an accepted (durable) purchase or view request. */
export type EventAck = WireType<'EventAck'>;
/** RFC 7807 problem details, as the purchase endpoint returns them. */
export type ProblemDetails = WireType<'ProblemDetails'>;
/** The `{type: -1, code, message}` error body of the spec's endpoints. */
export type ErrorEnvelope = WireType<'ErrorEnvelope'>;
/** The body of a key creation: `{actions: ["search"], expiresAt?, scope?}`. */
export type SearchKeyRequest = WireType<'SearchKeyRequest'>;
/** A coupon issued through the admin API. */
export type CouponIssue = Static<typeof CouponIssueSchema>;
/** The body of an experiment creation. */
export type ExperimentRequest = WireType<'ExperimentRequest'>;
/** An experiment as listed. */
export type Experiment = WireType<'Experiment'>;
/** An experiment with its report. */
export type ExperimentReport = WireType<'ExperimentReport'>;
/** The experiment and variant that served a response. */
export type ExperimentTag = WireType<'ExperimentTag'>;
