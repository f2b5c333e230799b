import { createEngine, type Engine } from '@aisle/engine';
import { describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';
import { bearer, post, SITE_A, testProducts, TOKEN_A } from './helpers.js';

/** Waits until `condition` holds (polling; no timing assertion). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('graceful shutdown', () => {
  it('stops accepting, finishes in-flight requests, then closes the engine', async () => {
    const engine = await createEngine({ workers: 0, websites: [SITE_A] });
    await engine.upsertProducts('site-a', testProducts());
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    let started = 0;
    let engineClosed = false;
    const held = new Proxy(engine, {
      get(target, prop) {
        if (prop === 'search') {
          return async (body: Parameters<typeof target.search>[0]) => {
            started++;
            await gate;
            return target.search(body);
          };
        }
        if (prop === 'close') {
          return async () => {
            engineClosed = true;
            await target.close();
          };
        }
        const value = Reflect.get(target, prop) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as Engine;
    const app = await createServer({ engine: held, port: 0, host: '127.0.0.1', logger: false });
    const inFlight = Array.from({ length: 8 }, () => post(`${app.url}/v1.4/search`, { website_id: 'site-a', client: 'client-a', q: 'zanzibar', start: 0 }, bearer(TOKEN_A)));
    await until(() => started === 8);
    const closing = app.close();
    await expect(fetch(`${app.url}/healthz`)).rejects.toThrow();
    expect(engineClosed).toBe(false);
    release();
    const responses = await Promise.all(inFlight);
    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(responses.every((r) => r.headers.get('connection') === 'close')).toBe(true);
    for (const r of responses) expect(((await r.json()) as { type: number }).type).toBe(1);
    await closing;
    expect(engineClosed).toBe(true);
    await app.close();
  });
});
