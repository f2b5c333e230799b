/**
 * The HTTP scenarios: what autocannon sends to the server. Request bodies come from the same
 * generators and workloads as the rest of the suite; purchases get a fresh orderId per request so
 * every one is a new order (not an idempotent replay).
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Product } from '../types.js';
import { buildWorkload } from '../workloads/index.js';
import { BENCH_WEBSITE } from '../peers/aisle.js';

export interface AutocannonRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
}

export interface Scenario {
  name: string;
  server: 'aisle' | 'hello';
  requests: AutocannonRequest[];
  /** A recommendation call, also sent to the bare node:http server making the same engine call (issue 11's 60 % target). */
  againstBare?: boolean;
}

const AUTH = { 'content-type': 'application/json', authorization: `Bearer ${BENCH_WEBSITE.tokens[0]}` };

export function scenarios(sample: Product[], refIds: string[]): Scenario[] {
  const workload = buildWorkload(sample, 50);
  const refs = refIds.length > 0 ? refIds : sample.slice(0, 100).map((p) => p.refId);
  let order = 0;
  let view = 0;
  const customer = randomUUID();
  return [
    { name: 'bare node:http hello world', server: 'hello', requests: [{ method: 'GET', path: '/' }] },
    // Simple requests: what the adapter itself costs beside hello world (no engine work to speak of).
    { name: 'GET /healthz', server: 'aisle', requests: [{ method: 'GET', path: '/healthz' }] },
    {
      name: 'GET /1.0/ClientRecom/{id}/PopularItems?count=3',
      server: 'aisle',
      againstBare: true,
      requests: [{ method: 'GET', path: `/1.0/ClientRecom/${BENCH_WEBSITE.websiteId}/PopularItems?count=3` }],
    },
    {
      name: 'POST /v1.4/search (text + facets + min/max)',
      server: 'aisle',
      requests: workload.text_facets.map((q) => ({ method: 'POST', path: '/v1.4/search', headers: AUTH, body: JSON.stringify(q) })),
    },
    {
      name: 'POST /v1.4/search (category browse, facets, ranges, price sort)',
      server: 'aisle',
      requests: workload.browse.map((q) => ({ method: 'POST', path: '/v1.4/search', headers: AUTH, body: JSON.stringify(q) })),
    },
    {
      name: 'GET /1.0/ClientRecom/{id}/ProductDetail',
      server: 'aisle',
      againstBare: true,
      requests: refs.slice(0, 100).map((ref) => ({
        method: 'GET',
        path: `/1.0/ClientRecom/${BENCH_WEBSITE.websiteId}/ProductDetail?customerId=${customer}&productRef=${encodeURIComponent(ref)}&filterOutOfStock=true`,
      })),
    },
    {
      name: 'POST /3.0/events/purchases (new order each)',
      server: 'aisle',
      requests: [{
        method: 'POST', path: '/3.0/events/purchases', headers: AUTH,
        setupRequest: (request) => {
          const n = ++order;
          const ref = refs[n % refs.length]!;
          return {
            ...request,
            body: JSON.stringify({
              customerId: customer, sessionId: customer,
              events: [{
                currentUrl: 'https://shop.example.com/checkout', eventTime: new Date().toISOString(), orderId: `BENCH-${process.pid}-${n}`,
                currencyCode: 'EUR', products: [{ refId: ref, quantity: 1, price: 19.99 }],
              }],
            }),
          };
        },
      }],
    },
    {
      name: 'POST /3.0/events/views',
      server: 'aisle',
      requests: [{
        method: 'POST', path: '/3.0/events/views', headers: AUTH,
        setupRequest: (request) => {
          const n = ++view;
          return {
            ...request,
            body: JSON.stringify({
              customerId: customer, sessionId: customer,
              events: [{ currentUrl: 'https://shop.example.com/p', eventTime: new Date().toISOString(), refId: refs[n % refs.length]! }],
            }),
          };
        },
      }],
    },
  ];
}
