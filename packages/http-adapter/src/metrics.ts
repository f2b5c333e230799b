/**
 * Prometheus metrics of the listener: request counts and latency histograms per route template
 * (never raw paths, so ids do not explode the label space). Each listener has its own registry.
 * @module
 */
import { BACKGROUND_TASKS, type Engine } from '@aisle/engine';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** The listener's metrics. */
export class HttpMetrics {
  readonly registry: Registry;
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route'>;
  /** Label children by method, then route template, then status: no key string is built per request. */
  private readonly children = new Map<string, Map<string, { histogram: { observe(v: number): void }; counters: Map<number, { inc(): void }> }>>();

  constructor(options: { registry?: Registry; defaultMetrics?: boolean } = {}) {
    this.registry = options.registry ?? new Registry();
    this.requests = new Counter({
      name: 'aisle_http_requests_total',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: 'aisle_http_request_duration_seconds',
      help: 'HTTP request latency by method and route template',
      labelNames: ['method', 'route'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    if (options.defaultMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'aisle_' });
  }

  /**
   * Exports the engine's background failures (snapshot writes, replica polls, index builds, …) as
   * `aisle_background_failures_total{task}`, read from the engine at each scrape. Once per registry.
   */
  trackEngine(engine: Pick<Engine, 'backgroundFailures'>): void {
    if (this.registry.getSingleMetric('aisle_background_failures_total')) return;
    const exported = new Map<string, number>();
    new Counter({
      name: 'aisle_background_failures_total',
      help: 'Failures of background work no request waits for (logged as they happen), by task',
      labelNames: ['task'],
      registers: [this.registry],
      collect() {
        const counts = engine.backgroundFailures();
        for (const task of BACKGROUND_TASKS) {
          const delta = counts[task] - (exported.get(task) ?? 0);
          // inc(0) makes every task visible from the first scrape.
          this.inc({ task }, Math.max(0, delta));
          exported.set(task, counts[task]);
        }
      },
    });
  }

  /** Records one finished request. */
  observe(method: string, route: string, status: number, seconds: number): void {
    let byRoute = this.children.get(method);
    if (!byRoute) this.children.set(method, byRoute = new Map());
    let entry = byRoute.get(route);
    if (!entry) byRoute.set(route, entry = { histogram: this.duration.labels(method, route), counters: new Map() });
    let counter = entry.counters.get(status);
    if (!counter) entry.counters.set(status, counter = this.requests.labels(method, route, String(status)));
    counter.inc();
    entry.histogram.observe(seconds);
  }

  /** The Prometheus text exposition. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
