/**
 * The OpenAPI 3.1 description of the whole HTTP surface, derived from the endpoint declarations
 * (endpoints.ts) and the schemas module (the same schemas validate requests and serialise responses).
 * @module
 */
import {
  allEndpoints, pathParamNames, TAGS,
  type AuthKind, type BodyDeclaration, type EndpointDeclaration, type OperationDeclaration, type ResponseDeclaration,
} from './endpoints.js';
import type { ErrorShape } from './errors.js';
import { querySchemas, schemas, type JsonSchema, type QuerySchemaName, type SchemaName } from './schemas.js';

const schemaRef = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: SchemaName) => ({ 'application/json': { schema: schemaRef(name) } });

const ERROR_CONTENT: Record<ErrorShape, Record<string, unknown>> = {
  envelope: json('ErrorEnvelope'),
  problem: { 'application/problem+json': { schema: schemaRef('ProblemDetails') } },
};

/** Added to every operation: the listener answers any undeclared method so. */
const NOT_ALLOWED = 'Method not allowed.';
/** Added to every operation that declares errors: the engine is closing, the store failed, or the engine did not answer in time. */
const UNAVAILABLE = 'The engine is closing, the store failed (nothing was recorded), or the engine did not answer in time.';

/** The security requirement of each auth kind; public operations declare none (`[]`) explicitly. */
const SECURITY: Record<AuthKind, readonly Record<string, never[]>[]> = {
  public: [],
  website: [{ bearer: [] }],
  search: [{ bearer: [] }, { searchKey: [] }],
  insights: [{ bearer: [] }, { searchKey: [] }],
  admin: [{ adminBearer: [] }],
};

function responseObject(response: ResponseDeclaration): Record<string, unknown> {
  const content = response.schema ? json(response.schema) : response.content;
  const headers = response.headers && Object.fromEntries(Object.entries(response.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }]));
  return { description: response.description, ...(headers && { headers }), ...(content && { content }) };
}

/** The documented content of a request body: every JSON media type with the schema, or the declared content. */
function requestContent(body: BodyDeclaration): Record<string, unknown> {
  if (body.content) return body.content;
  return Object.fromEntries(body.mediaTypes.map((type) => [type, { schema: schemaRef(body.schema) }]));
}

/**
 * The OpenAPI parameters of a query schema: one per property, its description lifted out of the schema.
 * Arrays are exploded form parameters (`items=a&items=b`; the indexed `items[0]` form is described).
 */
function queryParameters(name: QuerySchemaName): Record<string, unknown>[] {
  const schema = querySchemas[name] as { properties: Record<string, JsonSchema>; required?: readonly string[] };
  return Object.entries(schema.properties).map(([param, { description, ...property }]) => ({
    name: param, in: 'query', required: schema.required?.includes(param) ?? false,
    ...(property.type === 'array' && { style: 'form', explode: true }),
    description, schema: property,
  }));
}

function operationObject(endpoint: EndpointDeclaration, op: OperationDeclaration): Record<string, unknown> {
  const parameters = [
    ...pathParamNames(endpoint.path).map((name) => ({
      name, in: 'path', required: true, description: endpoint.pathParams?.[name] ?? name, schema: { type: 'string' },
    })),
    ...(op.query ? queryParameters(op.query) : []),
    ...Object.entries(op.requestHeaders ?? {}).map(([name, description]) => ({ name, in: 'header', required: false, description, schema: { type: 'string' } })),
  ];
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(op.responses)) responses[status] = responseObject(response);
  const errors = { ...op.errors, 405: NOT_ALLOWED, ...(op.errors && { 503: UNAVAILABLE }) };
  for (const [status, description] of Object.entries(errors)) {
    responses[status] ??= { description, content: ERROR_CONTENT[endpoint.errorShape] };
  }
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description && { description: op.description }),
    security: SECURITY[op.auth],
    ...(parameters.length > 0 && { parameters }),
    ...(op.body && { requestBody: { required: true, content: requestContent(op.body) } }),
    responses,
  };
}

/** Builds the OpenAPI document; `prefix` becomes the server URL when the surface is mounted under one. */
export function buildOpenApi(options: { prefix?: string } = {}): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of allEndpoints) {
    if (endpoint.undocumented) continue;
    const item: Record<string, unknown> = {};
    for (const op of endpoint.operations) item[op.method.toLowerCase()] = operationObject(endpoint, op);
    paths[endpoint.path] = item;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'aisle',
      version: '0.1.0',
      description: 'Self-hosted search, recommendation and purchase-event engine for online shops. See docs/http-api.md.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: options.prefix || '/' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A website token: opens exactly one website.' },
        adminBearer: { type: 'http', scheme: 'bearer', description: 'An admin token (adminTokens in the config file).' },
        searchKey: { type: 'http', scheme: 'bearer', description: 'A browser key (POST /admin/v1/websites/{websiteId}/keys): opens, on its website only, what its actions name: search (with its forced scope), insights (click events), or both.' },
      },
    },
  };
}
