import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEngine, type Engine } from '@aisle/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListener } from '../src/listener.js';
import { createServer, type AisleServer } from '../src/server.js';
import { bearer, expectDocumented, post, SITE_A, testProducts, TOKEN_A } from './helpers.js';

let engine: Engine;
let app: AisleServer;
beforeAll(async () => {
  engine = await createEngine({ workers: 0, websites: [SITE_A] });
  await engine.upsertProducts('site-a', testProducts());
  app = await createServer({ engine, port: 0, host: '127.0.0.1', logger: false, maxHeaderSize: 2048, closeEngine: false });
});
afterAll(async () => {
  await app.close();
  await engine.close();
});

/** A raw request, so oversized headers are sent as they are. */
function rawRequest(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('createServer limits', () => {
  it('431 for headers above maxHeaderSize', async () => {
    expect(await rawRequest(`${app.url}/healthz`, { 'x-big': 'x'.repeat(4096) })).toBe(431);
    expect(await rawRequest(`${app.url}/healthz`, { 'x-small': 'x' })).toBe(200);
  });

  it('serves process metrics besides the request metrics', async () => {
    const text = await (await fetch(`${app.url}/metrics`)).text();
    expect(text).toContain('aisle_process_cpu_user_seconds_total');
  });

  it('answers 503 in the endpoint shape when the engine does not answer within handlerTimeoutMs', async () => {
    const never = new Proxy(engine, {
      get(target, prop) {
        if (prop === 'search') return () => new Promise(() => undefined);
        const value = Reflect.get(target, prop) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as Engine;
    const listener = createListener(never, { logger: false, limits: { handlerTimeoutMs: 50 } });
    const server = http.createServer(listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await post(`${base}/v1.4/search`, { website_id: 'site-a', client: 'client-a', q: '', start: 0 }, bearer(TOKEN_A));
      expect(res.status).toBe(503);
      expect(await expectDocumented(res, '/v1.4/search', 'POST')).toMatchObject({ type: -1, code: 503, message: expect.stringContaining('50 ms') });
      listener.beginShutdown();
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get('connection')).toBe('close');
      expect(await expectDocumented(ready, '/readyz', 'GET')).toEqual({ status: 'not ready', checks: [{ name: 'listener', ok: false, reason: 'shutting down' }] });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
