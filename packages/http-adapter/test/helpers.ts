/**
 * Test support: a real engine (in memory) with two websites, served over a real socket on port 0,
 * and a checker of response bodies against the OpenAPI document.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createEngine, type Engine, type Product, type WebsiteConfig } from '@aisle/engine';
import { generateCatalog, generateInteractions } from '@aisle/engine/demo';
import { expect } from 'vitest';
import { buildOpenApi } from '../src/openapi.js';
import { createListener, type AisleListener, type ListenerOptions } from '../src/listener.js';

export const ADMIN_TOKEN = 'admin-token-0123456789';
export const TOKEN_A = 'token-a-0123456789';
export const TOKEN_B = 'token-b-0123456789';
export const ORIGIN_A = 'https://shop-a.example';

export const SITE_A: WebsiteConfig = {
  websiteId: 'site-a', client: 'client-a', tokens: [TOKEN_A], hmacSecret: 'secret-a',
  // Its purchases state EUR: the reports' revenue is in it.
  settings: { semanticSearch: true, cors: { origins: [ORIGIN_A] }, currency: 'EUR' },
};
export const SITE_B: WebsiteConfig = { websiteId: 'site-b', client: 'client-b', tokens: [TOKEN_B], hmacSecret: 'secret-b' };

/** A small realistic catalog plus two hand-made products with known fields. */
export function testProducts(): Product[] {
  return [
    ...generateCatalog({ count: 400, seed: 7 }),
    { refId: 'KNOWN-1', title: 'Zanzibar espresso machine', brand: 'Zanzibar', search_category: 'Coffee', price: 199.5, availability: 3 },
    { refId: 'KNOWN-2', title: 'Zanzibar milk frother', brand: 'Zanzibar', search_category: 'Coffee', price: 49, availability: 0 },
  ];
}

export interface TestService {
  url: string;
  engine: Engine;
  listener: AisleListener;
  server: http.Server;
  products: Product[];
  close(): Promise<void>;
}

/** Creates the engine with data in both websites and serves it. */
export async function startService(options: ListenerOptions & { wrapEngine?: (engine: Engine) => Engine } = {}): Promise<TestService> {
  const engine = await createEngine({ workers: 0, websites: [SITE_A, SITE_B], adminTokens: [ADMIN_TOKEN] });
  const products = testProducts();
  await engine.upsertProducts('site-a', products);
  await engine.upsertProducts('site-b', products.slice(0, 50));
  // Site A ranks with the built-in semantic model: wait until it has learnt the catalog.
  await engine.semanticModel('site-a');
  const { views, purchases } = generateInteractions({ products, sessions: 150, seed: 7 });
  for (const body of views) await engine.recordViews('site-a', body);
  for (const body of purchases) await engine.recordPurchases('site-a', body);
  const served = options.wrapEngine ? options.wrapEngine(engine) : engine;
  const listener = createListener(served, { adminTokens: [ADMIN_TOKEN], logger: false, ...options });
  const server = http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    engine,
    listener,
    server,
    products,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await engine.close();
    },
  };
}

/** Serves an engine over a real socket on port 0; `close` stops the server (not the engine). */
export async function serveEngine(engine: Engine, options: ListenerOptions = {}): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(createListener(engine, { logger: false, ...options }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const openapi = buildOpenApi() as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>; components: unknown };
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ $id: 'aisle-openapi', components: openapi.components } as never);

/** Rewrites `#/components/...` references to the registered document. */
function withDocRefs(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"aisle-openapi#/components/'));
}

/** Asserts that a response matches the OpenAPI document: its status is listed and its body matches the schema. */
export async function expectDocumented(res: Response, path: string, method: string): Promise<unknown> {
  const operation = openapi.paths[path]?.[method.toLowerCase()];
  expect(operation, `${method} ${path} is in the OpenAPI document`).toBeDefined();
  const response = operation!.responses[String(res.status)];
  expect(response, `status ${res.status} of ${method} ${path} is documented`).toBeDefined();
  const text = await res.text();
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0]!;
  const media = response!.content?.[contentType];
  expect(media, `content type ${contentType} of ${res.status} ${method} ${path} is documented`).toBeDefined();
  if (contentType.endsWith('json')) {
    const body = JSON.parse(text) as unknown;
    const validate = ajv.compile(withDocRefs(media!.schema) as object);
    const valid = validate(body);
    expect(valid, `${method} ${path} ${res.status}: ${ajv.errorsText(validate.errors)} in ${text.slice(0, 300)}`).toBe(true);
    return body;
  }
  return text;
}

/** JSON request helper. */
export function post(url: string, body: unknown, headers: Record<string, string> = {}, method = 'POST'): Promise<Response> {
  return fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
