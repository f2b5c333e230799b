import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HttpMetrics } from '../src/metrics.js';

describe('HttpMetrics', () => {
  it('writes the same exposition as prom-client\'s own counter and histogram fed the same requests', async () => {
    const requests: [string, string, number, number][] = [
      ['GET', '/healthz', 200, 0.0004], ['GET', '/healthz', 200, 0.02], ['GET', '/healthz', 404, 20],
      ['POST', '/v1.4/search', 200, 0.003], ['GET', '/1.0/ClientRecom/{website_id}/Cart', 200, 0.0005], ['POST', '/v1.4/search', 400, 0.25],
    ];
    const metrics = new HttpMetrics();
    const registry = new Registry();
    const counter = new Counter({ name: 'aisle_http_requests_total', help: 'HTTP requests by method, route template and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
    const histogram = new Histogram({
      name: 'aisle_http_request_duration_seconds', help: 'HTTP request latency by method and route template', labelNames: ['method', 'route'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [registry],
    });
    for (const [method, route, status, seconds] of requests) {
      metrics.observe(method, route, status, seconds);
      counter.inc({ method, route, status: String(status) });
      histogram.observe({ method, route }, seconds);
    }
    const ours = await metrics.text();
    // The same samples (the order of series within a metric carries no meaning in the text format).
    const lines = (text: string) => text.split('\n').filter((l) => l !== '').sort();
    expect(lines(ours.slice(ours.indexOf('# HELP aisle_http_requests_total')))).toEqual(lines(await registry.metrics()));
    // A scrape reads the numbers; it does not reset them.
    expect(await metrics.text()).toBe(ours);
  });
});
