/**
 * The JSON schemas of the HTTP surface: the engine's contract (`@aisle/engine`, contract/schemas.ts),
 * re-exported under the names the adapter has always used (the query-string schemas too: query.ts
 * decodes with them). ajv validates request bodies with them,
 * fast-json-stringify compiles response serialisers from them, and `buildOpenApi` publishes them
 * under `components.schemas`. Nothing here restates a schema, a limit or a method name.
 * @module
 */
export {
  schemas, inlineRefs, querySchemas, RECOMMEND_METHODS, type JsonSchema, type SchemaName, type QuerySchemaName, type RecommendMethod,
} from '@aisle/engine';
