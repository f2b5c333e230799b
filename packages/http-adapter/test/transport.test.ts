import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi } from '../src/openapi.js';
import { createListener } from '../src/listener.js';
import { ADMIN_TOKEN, bearer, expectDocumented, post, startService, TOKEN_A, type TestService } from './helpers.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.close());

describe('operations endpoints', () => {
  it('healthz, readyz, openapi.json', async () => {
    const health = await fetch(`${svc.url}/healthz`);
    expect(await expectDocumented(health, '/healthz', 'GET')).toEqual({ status: 'ok' });
    // The stored events are replayed after the start: a recommendation waits for that replay.
    expect((await fetch(`${svc.url}/1.0/ClientRecom/site-a/PopularItems`)).status).toBe(200);
    const ready = await fetch(`${svc.url}/readyz`);
    expect(await expectDocumented(ready, '/readyz', 'GET')).toMatchObject({
      status: 'ready', checks: [{ name: 'listener', ok: true }, { name: 'store', ok: true }, { name: 'recommendations', ok: true }, { name: 'events', ok: true }],
    });
    const doc = await fetch(`${svc.url}/openapi.json`);
    expect(doc.status).toBe(200);
    expect(((await expectDocumented(doc, '/openapi.json', 'GET')) as { openapi: string }).openapi).toBe('3.1.0');
    const head = await fetch(`${svc.url}/healthz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('metrics: request counts and latency per route template, never raw ids or tokens', async () => {
    await (await fetch(`${svc.url}/1.0/ClientRecom/site-a/PopularItems`)).text();
    await (await post(`${svc.url}/v1.4/search`, { website_id: 'site-a', client: 'client-a', q: '', start: 0 }, bearer(TOKEN_A))).text();
    const res = await fetch(`${svc.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = (await expectDocumented(res, '/metrics', 'GET')) as string;
    expect(text).toContain('aisle_http_requests_total{method="GET",route="/1.0/ClientRecom/{website_id}/PopularItems",status="200"}');
    expect(text).toContain('aisle_http_request_duration_seconds_bucket{le="0.005",method="POST",route="/v1.4/search"}');
    expect(text).not.toContain('site-a');
    expect(text).not.toContain(TOKEN_A);
  });

  it('the OpenAPI document is valid OpenAPI 3.1 and lists every path', async () => {
    const validator = new Validator();
    const result = await validator.validate(buildOpenApi() as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    const paths = Object.keys((buildOpenApi() as { paths: object }).paths);
    expect(paths).toHaveLength(1 + 17 + 1 + 3 + 1 + 15 + 5); // events: purchases, views, clicks; admin: products, products/delete, product, coupons, stats, attribution, searches, recommendations, settings, settings/preview, keys, key, experiments, experiment, experiment/stop; operations: healthz, readyz, metrics, openapi, dashboard config
  });

  it('docs/openapi.json is the generated document (run src/write-openapi.ts after changing a schema)', () => {
    const written = JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8')) as unknown;
    expect(written).toEqual(JSON.parse(JSON.stringify(buildOpenApi())));
  });
});

describe('transport', () => {
  it('tokens follow website changes: a website added at run time, then its token rotated', async () => {
    const url = `${svc.url}/v1.4/search`;
    const body = { website_id: 'site-c', client: 'client-c', q: '', start: 0 };
    const site = { websiteId: 'site-c', client: 'client-c', tokens: ['token-c-1'], hmacSecret: 's' };
    await svc.engine.addWebsite(site);
    const first = await post(url, body, bearer('token-c-1'));
    expect(first.status).toBe(200);
    await first.text();
    await svc.engine.addWebsite({ ...site, tokens: ['token-c-2'] });
    const old = await post(url, body, bearer('token-c-1'));
    expect(old.status).toBe(401);
    await old.text();
    const rotated = await post(url, body, bearer('token-c-2'));
    expect(rotated.status).toBe(200);
    await rotated.text();
  });

  it('unknown paths: 404 in JSON', async () => {
    for (const p of ['/nope', '/v1.4/search/extra', '/1.0/ClientRecom/site-a', '/admin/v1/websites/site-a/other']) {
      const res = await fetch(`${svc.url}${p}`);
      expect(res.status, p).toBe(404);
      expect(await res.json()).toMatchObject({ type: -1, code: 404, message: expect.any(String) });
    }
  });

  it('echoes a valid x-request-id, generates one otherwise', async () => {
    const given = await fetch(`${svc.url}/healthz`, { headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const generated = await fetch(`${svc.url}/healthz`, { headers: { 'x-request-id': 'bad id with spaces' } });
    const next = await fetch(`${svc.url}/healthz`);
    // The process's prefix and a count: two requests, two ids of one prefix.
    const [first, second] = [generated, next].map((res) => res.headers.get('x-request-id')!);
    expect(first).toMatch(/^[0-9a-f]{12}-[0-9a-z]+$/);
    expect(second).toMatch(/^[0-9a-f]{12}-[0-9a-z]+$/);
    expect(second).not.toBe(first);
    expect(second.slice(0, 13)).toBe(first!.slice(0, 13));
  });

  it('hundreds of parallel requests all succeed', async () => {
    const requests = Array.from({ length: 300 }, (_, i) => {
      if (i % 3 === 0) return post(`${svc.url}/v1.4/search`, { website_id: 'site-a', client: 'client-a', q: i % 2 ? 'zanzibar' : '', start: 0, size: 3 }, bearer(TOKEN_A));
      if (i % 3 === 1) return fetch(`${svc.url}/1.0/ClientRecom/site-a/PopularItems?count=5`);
      return fetch(`${svc.url}/admin/v1/websites/site-a/stats`, { headers: bearer(ADMIN_TOKEN) });
    });
    const responses = await Promise.all(requests);
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
    await Promise.all(responses.map((r) => r.text()));
  });

  it('works under a prefix and as Express/Connect middleware (next() for other paths)', async () => {
    const listener = createListener(svc.engine, { prefix: '/aisle/', adminTokens: [ADMIN_TOKEN], logger: false });
    let nextCalls = 0;
    const server = http.createServer((req, res) => listener(req, res, () => {
      nextCalls++;
      res.writeHead(418).end('next');
    }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const ok = await fetch(`${base}/aisle/1.0/ClientRecom/site-a/PopularItems?count=2`);
      expect(ok.status).toBe(200);
      await ok.text();
      const outside = await fetch(`${base}/1.0/ClientRecom/site-a/PopularItems`);
      expect(outside.status).toBe(418);
      await outside.text();
      const unknown = await fetch(`${base}/aisle/unknown`);
      expect(unknown.status).toBe(418);
      await unknown.text();
      expect(nextCalls).toBe(2);
      const doc = (await (await fetch(`${base}/aisle/openapi.json`)).json()) as { servers: { url: string }[] };
      expect(doc.servers[0]!.url).toBe('/aisle');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('takes a body already parsed by a framework (req.body)', async () => {
    const listener = createListener(svc.engine, { logger: false });
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        (req as unknown as { body: unknown; _body: boolean }).body = JSON.parse(Buffer.concat(chunks).toString());
        (req as unknown as { _body: boolean })._body = true;
        listener(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await post(`${base}/v1.4/search`, { website_id: 'site-a', client: 'client-a', q: 'zanzibar', start: 0 }, bearer(TOKEN_A));
      expect(res.status).toBe(200);
      await res.text();
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('writes one structured log line per request with the request id, never the token', async () => {
    const lines: string[] = [];
    const logger = pino({ base: null }, { write: (line: string) => void lines.push(line) });
    const listener = createListener(svc.engine, { logger });
    const server = http.createServer(listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await post(`${base}/v1.4/search`, { website_id: 'site-a', client: 'client-a', q: 'x', start: 0 }, { ...bearer(TOKEN_A), 'x-request-id': 'log-test-1' });
      await res.text();
      const bad = await post(`${base}/v1.4/search`, { website_id: 'site-a', client: 'client-a', q: 'x', start: 0 }, bearer('secret-wrong-token'));
      await bad.text();
      const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(entries[0]).toMatchObject({ reqId: 'log-test-1', method: 'POST', route: '/v1.4/search', status: 200, msg: 'request' });
      expect(entries[1]).toMatchObject({ route: '/v1.4/search', status: 401 });
      expect(lines.join('')).not.toContain(TOKEN_A);
      expect(lines.join('')).not.toContain('secret-wrong-token');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
