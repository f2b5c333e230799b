/**
 * The listener mounted inside real Express and Connect applications, beside the applications' own
 * routes and body parsers, under a mount path and under the listener's own prefix.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import connect from 'connect';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '@aisle/engine';
import { createListener } from '../src/listener.js';
import { SITE_A, TOKEN_A, testProducts } from './helpers.js';

let engine: Engine;
const servers: http.Server[] = [];

async function listen(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const searchBody = JSON.stringify({ website_id: 'site-a', client: 'client-a', q: 'zanzibar', start: 0, size: 5 });
const searchInit = { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN_A}` }, body: searchBody };

beforeAll(async () => {
  engine = await createEngine({ workers: 0, websites: [SITE_A] });
  await engine.upsertProducts('site-a', testProducts());
});

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
  await engine.close();
});

describe('inside Express', () => {
  it('serves the documented paths under a mount path, after express.json() read the body, and leaves other paths to the app', async () => {
    const app = express();
    app.use(express.json());
    app.get('/shop/hello', (_req, res) => { res.json({ app: true }); });
    app.use('/shop', createListener(engine, { logger: false }));
    app.use((_req, res) => { res.status(404).json({ fromApp: 'not found' }); });
    const url = await listen(app);

    const search = await fetch(`${url}/shop/v1.4/search`, searchInit);
    expect(search.status).toBe(200);
    const body = (await search.json()) as { payload: { result: { refId: string }[] } };
    expect(body.payload.result.map((p) => p.refId)).toContain('KNOWN-1');

    const recs = await fetch(`${url}/shop/1.0/ClientRecom/site-a/PopularItems?count=3`);
    expect(recs.status).toBe(200);

    expect(await (await fetch(`${url}/shop/hello`)).json()).toEqual({ app: true });
    const other = await fetch(`${url}/shop/not-ours`);
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ fromApp: 'not found' });

    const unauthorised = await fetch(`${url}/shop/v1.4/search`, { ...searchInit, headers: { 'content-type': 'application/json' } });
    expect(unauthorised.status).toBe(401);
    expect(await unauthorised.json()).toMatchObject({ type: -1, code: 401 });
  });
});

describe('inside Connect', () => {
  it('serves the documented paths under the listener prefix and hands unknown paths to next()', async () => {
    const app = connect();
    app.use(createListener(engine, { logger: false, prefix: '/api' }));
    app.use((_req: http.IncomingMessage, res: http.ServerResponse) => { res.statusCode = 418; res.end('app'); });
    const url = await listen(app);

    expect((await fetch(`${url}/api/v1.4/search`, searchInit)).status).toBe(200);
    expect((await fetch(`${url}/api/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/v1.4/search`, searchInit)).status).toBe(418);
    expect(await (await fetch(`${url}/elsewhere`)).text()).toBe('app');
  });
});

describe('createListener', () => {
  it('refuses an admin token that is also a website token', () => {
    // The listener took it, and the website's storefront token then opened the admin API of every website.
    expect(() => createListener(engine, { adminTokens: ['an-admin-token', TOKEN_A], logger: false }))
      .toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', message: 'adminTokens[1] is also a token of website "site-a" (a website token opens exactly one website, never the admin API)' }));
  });
});
