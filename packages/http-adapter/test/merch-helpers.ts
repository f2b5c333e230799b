/**
 * Test support for the merchandising tests: a small hand-made catalog whose expectations can be read
 * off, served by one engine running every search inline and one fanning every search out over the
 * worker pool (threshold 0), each over a real socket on port 0.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEngine, type Engine, type EngineOptions, type Product } from '@aisle/engine';
import { createListener } from '../src/listener.js';
import { ADMIN_TOKEN, bearer, post } from './helpers.js';

export const MERCH_TOKEN = 'merch-token-0123456789';

/** Twelve shoes and bags over three brands and two colours. */
export function merchProducts(): Product[] {
  const brands = ['Acme', 'Bolt', 'Cora'];
  const out: Product[] = [];
  for (let i = 1; i <= 12; i++) {
    const kind = i <= 9 ? 'shoe' : 'bag';
    const colour = i % 2 === 0 ? 'red' : 'blue';
    out.push({ refId: `p${i}`, title: `${colour} running ${kind} model ${i}`, brand: brands[i % 3]!, colour, search_category: kind, price: 10 * i, availability: i === 5 ? 0 : 3 });
  }
  out.push({ refId: 'odd', title: 'Garden hose', brand: 'Acme', colour: 'green', search_category: 'garden', price: 25, availability: 1 });
  return out;
}

export interface MerchService {
  url: string;
  engine: Engine;
  close(): Promise<void>;
}

/** An engine with the merch catalog on website `m`, served on a random port; `options` adds to the engine's (a store, a data directory). */
export async function startMerchService(pooled: boolean, options: Partial<EngineOptions> = {}): Promise<MerchService> {
  const engine = await createEngine({
    workers: pooled ? 2 : 0, poolThreshold: pooled ? 0 : undefined, adminTokens: [ADMIN_TOKEN],
    websites: [{ websiteId: 'm', client: 'mc', tokens: [MERCH_TOKEN], hmacSecret: 's' }], ...options,
  });
  await engine.upsertProducts('m', merchProducts());
  const server = http.createServer(createListener(engine, { adminTokens: [ADMIN_TOKEN], logger: false }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    engine,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await engine.close();
    },
  };
}

/** The fields of a search answer the merch tests read. */
export interface MerchAnswer {
  payload: {
    result: (Product & { _highlight?: Record<string, string> })[];
    total_results: number;
    aggregations?: Record<string, { key: string; doc_count: number }[]>;
    ranges?: Record<string, { min: number | null; max: number | null }>;
    suggestions: { queries?: string[] };
  };
}

/** A search on website `m` (200 expected). */
export async function merchSearch(svc: MerchService, body: Record<string, unknown>): Promise<MerchAnswer> {
  const res = await post(`${svc.url}/v1.4/search`, { website_id: 'm', client: 'mc', start: 0, ...body }, bearer(MERCH_TOKEN));
  if (res.status !== 200) throw new Error(`search answered ${res.status}: ${await res.text()}`);
  return res.json() as Promise<MerchAnswer>;
}

/** Replaces the settings of website `m` through the API (200 expected). */
export async function putMerchSettings(svc: MerchService, settings: unknown): Promise<void> {
  const res = await post(`${svc.url}/admin/v1/websites/m/settings`, settings, bearer(ADMIN_TOKEN), 'PUT');
  if (res.status !== 200) throw new Error(`settings answered ${res.status}: ${await res.text()}`);
}

/** The refIds of a page. */
export const refIds = (a: MerchAnswer): string[] => a.payload.result.map((p) => p.refId);
