/**
 * The request-level errors the adapter raises, over a real socket: each answers its code's status with
 * the words of its template, in the endpoint's documented shape. The expected texts are the wire as it
 * was before these errors were coded in the error table (ADR 0029): they pin it byte for byte.
 */
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListener } from '../src/listener.js';
import { ADMIN_TOKEN, bearer, startService, TOKEN_A, type TestService } from './helpers.js';

let svc: TestService;
/** A second listener over the same engine, with small limits and metrics and the dashboard turned off. */
let strict: { url: string; server: http.Server };

beforeAll(async () => {
  svc = await startService();
  const server = http.createServer(createListener(svc.engine, {
    adminTokens: [ADMIN_TOKEN], logger: false, metrics: false, dashboard: false, limits: { maxBytes: 100, adminMaxBytes: 100 },
  }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  strict = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
});
afterAll(async () => {
  strict.server.closeAllConnections();
  await new Promise<void>((resolve) => strict.server.close(() => resolve()));
  await svc.close();
});

const json = { 'content-type': 'application/json' };
const search = (body: string | Uint8Array, headers: Record<string, string> = { ...json, ...bearer(TOKEN_A) }) => ({ method: 'POST', path: '/v1.4/search', headers, body });
const searchBody = { website_id: 'site-a', client: 'client-a', q: '', start: 0 };
/** `json` with `text` in the place of `@`, as bytes: e.g. a Latin-1 "é" (0xE9) inside a UTF-8 body. */
const withBytes = (json: string, bytes: number[]) => Buffer.concat([Buffer.from(json.slice(0, json.indexOf('@'))), Buffer.from(bytes), Buffer.from(json.slice(json.indexOf('@') + 1))]);
const notUtf8 = 'request body is not valid JSON: its bytes are not valid UTF-8 (JSON text is UTF-8, RFC 8259)';

interface Case {
  name: string;
  request: { method?: string; path: string; headers?: Record<string, string>; body?: string | Uint8Array };
  on?: 'strict';
  status: number;
  /** The envelope's message, or the problem details' `errors`. */
  message?: string;
  errors?: Record<string, string[]>;
  headers?: Record<string, string>;
}

const cases: Case[] = [
  { name: 'unknown path', request: { path: '/nope' }, status: 404, message: 'no such path: /nope' },
  {
    name: 'method not allowed', request: { method: 'PUT', path: '/healthz' }, status: 405,
    message: 'method PUT is not allowed on /healthz; allowed: GET, HEAD, OPTIONS', headers: { allow: 'GET, HEAD, OPTIONS' },
  },
  {
    name: 'bad percent-encoding in a path segment of an admin endpoint', request: { path: '/admin/v1/websites/site%zz/stats', headers: bearer(ADMIN_TOKEN) },
    // The path names the endpoint: its shape (problem details), as a 405 on it would be.
    status: 400, errors: { $: ['path segment "site%zz" is not valid percent-encoding'] },
  },
  {
    name: 'bad percent-encoding in a declared query parameter', request: { path: '/1.0/ClientRecom/site-a/ProductDetail?productRef=%E0%A4%A&utm=50%' },
    status: 400, message: 'query parameter productRef is not valid percent-encoding',
  },
  {
    name: 'bad percent-encoding in a path segment of a recommendation endpoint', request: { path: '/1.0/ClientRecom/site%E0%A4%A/PopularItems' },
    status: 400, message: 'path segment "site%E0%A4%A" is not valid percent-encoding',
  },
  // Each 401 now carries its challenge (RFC 9110: a 401 MUST; they had none).
  {
    name: 'search without a token', request: search(JSON.stringify(searchBody), json), status: 401, message: 'missing bearer token: send Authorization: Bearer <token or search key>',
    headers: { 'www-authenticate': 'Bearer realm="aisle"' },
  },
  {
    name: 'search with an unknown token', request: search(JSON.stringify(searchBody), { ...json, ...bearer('nope') }), status: 401, message: 'invalid bearer token',
    headers: { 'www-authenticate': 'Bearer realm="aisle", error="invalid_token"' },
  },
  {
    name: 'search of a website the token does not open', request: search(JSON.stringify({ ...searchBody, website_id: 'site-b', client: 'client-b' })),
    status: 401, message: 'the bearer token does not open website_id "site-b"',
  },
  {
    name: 'search body of another media type', request: search('{}', { 'content-type': 'text/plain', ...bearer(TOKEN_A) }),
    status: 415, message: 'Content-Type must be application/json (got text/plain)',
  },
  {
    // A compressed body was read as JSON text and refused as "not valid UTF-8", a coding aisle ignored was read as plain.
    name: 'search body with a content coding', request: search(gzipSync(JSON.stringify(searchBody)), { ...json, 'content-encoding': 'gzip', ...bearer(TOKEN_A) }),
    status: 415, message: 'Content-Encoding must be identity (got gzip): send the body uncompressed',
  },
  {
    name: 'product feed with a content coding other than gzip', request: {
      method: 'PUT', path: '/admin/v1/websites/site-b/products', headers: { ...json, 'content-encoding': 'br', ...bearer(ADMIN_TOKEN) }, body: '[{"refId":"BR-1"}]',
    },
    status: 415, errors: { $: ['Content-Encoding must be identity or gzip (got br): send the body uncompressed or gzipped'] },
  },
  { name: 'empty search body', request: search(''), status: 400, message: 'request body is empty; a JSON document is required' },
  { name: 'search body nested too deep', request: search(`${'['.repeat(40)}${']'.repeat(40)}`), status: 400, message: 'JSON nesting is deeper than 32 levels' },
  {
    name: 'search body with an array too long', request: search(JSON.stringify({ ...searchBody, aggregations: Array.from({ length: 1001 }, () => 'a') })),
    status: 400, message: 'aggregations has 1001 elements; at most 1000 are accepted',
  },
  // Decoded with U+FFFD in place of the bad byte, this searched (and logged) a query nobody typed.
  { name: 'search body that is not UTF-8', request: search(withBytes(JSON.stringify({ ...searchBody, q: 'caf@' }), [0xe9])), status: 400, message: notUtf8 },
  {
    // ... and stored an order id and a refId nobody sent.
    name: 'purchase body that is not UTF-8',
    request: {
      method: 'POST', path: '/3.0/events/purchases', headers: { ...json, ...bearer(TOKEN_A) },
      body: withBytes(JSON.stringify({ customerId: '7d1c0a9e-5b2f-4f4e-9a51-0c6f3c1e2a10', sessionId: '0b7f1e0c-3d2a-4c55-8e1f-2a9b6c4d8e21', events: [{ currentUrl: 'https://shop.example/c', eventTime: '2026-11-30T01:00:00Z', orderId: 'o-@', products: [{ refId: 'p1', quantity: 1, price: 1 }] }] }), [0xc3]),
    },
    status: 400, errors: { $: [notUtf8] },
  },
  { name: 'search body failing its schema', request: search(JSON.stringify({ ...searchBody, start: -1 })), status: 400, message: 'start must be at least 0' },
  { name: 'search body above the size limit', on: 'strict', request: search(JSON.stringify({ ...searchBody, q: 'x'.repeat(200) })), status: 413, message: 'request body exceeds the limit of 100 bytes' },
  { name: 'unknown recommendation method', request: { path: '/1.0/ClientRecom/site-a/Nope' }, status: 404, message: 'unknown recommendation method "Nope"' },
  { name: 'recommendation count out of range', request: { path: '/1.0/ClientRecom/site-a/PopularItems?count=abc' }, status: 400, message: 'query parameter count must be an integer from 1 to 100 (got "abc")' },
  { name: 'coupon call without its code', request: { path: '/b2b/coupon/mark_as_used?client=site-a' }, status: 400, message: 'query parameter code is required' },
  {
    name: 'purchases without a token', request: { method: 'POST', path: '/3.0/events/purchases', headers: json, body: '{}' },
    status: 401, errors: { Authorization: ['missing bearer token: send Authorization: Bearer <token>'] },
  },
  { name: 'admin call without a token', request: { path: '/admin/v1/websites/site-a/stats' }, status: 401, errors: { Authorization: ['missing bearer token: send Authorization: Bearer <admin token>'] } },
  {
    name: 'admin call with a website token', request: { path: '/admin/v1/websites/site-a/stats', headers: bearer(TOKEN_A) }, status: 401, errors: { Authorization: ['invalid admin token'] },
    headers: { 'www-authenticate': 'Bearer realm="aisle", error="invalid_token"' },
  },
  { name: 'admin call on an unknown website', request: { path: '/admin/v1/websites/nope/stats', headers: bearer(ADMIN_TOKEN) }, status: 404, errors: { websiteId: ['unknown website "nope"'] } },
  {
    name: 'unknown product', request: { path: '/admin/v1/websites/site-a/products/NOPE', headers: bearer(ADMIN_TOKEN) },
    status: 404, errors: { refId: ['no product with refId "NOPE" in website "site-a"'] },
  },
  {
    name: 'empty product feed', request: { method: 'PUT', path: '/admin/v1/websites/site-b/products', headers: { ...json, ...bearer(ADMIN_TOKEN) }, body: ' ' },
    status: 400, errors: { $: ['request body is empty; send a JSON array or NDJSON of products'] },
  },
  {
    // A Latin-1 export: its "é" was stored as U+FFFD before, the load answering 200.
    name: 'product feed that is not UTF-8', request: { method: 'PUT', path: '/admin/v1/websites/site-b/products?onError=skip', headers: { 'content-type': 'application/x-ndjson', ...bearer(ADMIN_TOKEN) }, body: withBytes('{"refId":"latin1","title":"caf@ noir"}\n', [0xe9]) },
    status: 400, errors: { $: ['the product feed is not valid UTF-8 (near byte 31): convert it to UTF-8 (e.g. iconv -f WINDOWS-1252 -t UTF-8); nothing was loaded'] },
  },
  {
    name: 'product feed that is not an array', request: { method: 'PATCH', path: '/admin/v1/websites/site-b/products', headers: { ...json, ...bearer(ADMIN_TOKEN) }, body: '{}' },
    status: 400, errors: { $: ['request body must be a JSON array of partial products with refId (or NDJSON with Content-Type application/x-ndjson)'] },
  },
  {
    name: 'product upload with an unknown onError', request: { method: 'PUT', path: '/admin/v1/websites/site-b/products?onError=maybe', headers: { ...json, ...bearer(ADMIN_TOKEN) }, body: '[]' },
    status: 400, errors: { onError: ['query parameter onError must be reject or skip'] },
  },
  {
    name: 'product patch with mode=replace', request: { method: 'PATCH', path: '/admin/v1/websites/site-b/products?mode=replace', headers: { ...json, ...bearer(ADMIN_TOKEN) }, body: '[]' },
    status: 400, errors: { mode: ['query parameter mode must be upsert'] },
  },
  {
    name: 'product feed above the upload limit', on: 'strict',
    request: { method: 'PUT', path: '/admin/v1/websites/site-b/products', headers: { ...json, ...bearer(ADMIN_TOKEN) }, body: JSON.stringify([{ refId: 'x'.repeat(200) }]) },
    status: 413, errors: { $: ['request body exceeds the limit of 100 bytes'] }, headers: { connection: 'close' },
  },
  {
    // 60 bytes sent, 10 kB unzipped: the limit counted the bytes sent, and the engine unzipped without a bound.
    name: 'gzipped product feed above the upload limit once unzipped', on: 'strict',
    request: {
      method: 'PUT', path: '/admin/v1/websites/site-b/products', headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip', ...bearer(ADMIN_TOKEN) },
      body: gzipSync('{"refId":"GZ-BOMB"}\n'.repeat(500)),
    },
    status: 413, errors: { $: ['the product feed exceeds the limit of 100 bytes once unzipped; nothing was changed'] },
  },
  {
    name: 'searches report with a limit out of range', request: { path: '/admin/v1/websites/site-a/reports/searches?limit=0', headers: bearer(ADMIN_TOKEN) },
    status: 400, errors: { limit: ['query parameter limit must be an integer from 1 to 1000 (got "0")'] },
  },
  ...(['searches', 'recommendations', 'attribution'] as const).map((report): Case => ({
    // Answered 200 with empty lists, as if nothing had happened in the window.
    name: `${report} report with to before from`,
    request: { path: `/admin/v1/websites/site-a/reports/${report}?from=2026-12-01T00:00:00Z&to=2026-11-01T00:00:00Z`, headers: bearer(ADMIN_TOKEN) },
    status: 400, errors: { to: ['The to parameter must not be before from.'] },
  })),
  { name: 'metrics turned off', on: 'strict', request: { path: '/metrics' }, status: 404, message: 'metrics are disabled' },
  { name: 'dashboard turned off', on: 'strict', request: { path: '/' }, status: 404, message: 'the dashboard is turned off (dashboard: false)' },
  { name: 'unknown dashboard file', request: { path: '/dashboard/nope.js' }, status: 404, message: 'no such dashboard file: nope.js' },
];

describe('request-level errors: coded, worded by their templates, in the endpoint\'s shape', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const base = c.on === 'strict' ? strict.url : svc.url;
      const res = await fetch(`${base}${c.request.path}`, { method: c.request.method ?? 'GET', headers: c.request.headers, body: c.request.body });
      expect(res.status).toBe(c.status);
      for (const [name, value] of Object.entries(c.headers ?? {})) expect(res.headers.get(name)).toBe(value);
      const text = await res.text();
      if (c.message !== undefined) {
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(text).toBe(JSON.stringify({ type: -1, code: c.status, message: c.message }));
      } else {
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(JSON.parse(text)).toMatchObject({ status: c.status, errors: c.errors });
      }
    });
  }

  it('words an unparseable body with the parser\'s reason', async () => {
    const res = await fetch(`${svc.url}/v1.4/search`, { method: 'POST', headers: { ...json, ...bearer(TOKEN_A) }, body: '{' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/^request body is not valid JSON: /);
  });
});
