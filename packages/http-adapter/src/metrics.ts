/**
 * Prometheus metrics of the listener: request counts and latency histograms per route template
 * (never raw paths, so ids do not explode the label space). Each listener has its own registry.
 * @module
 */
import { BACKGROUND_TASKS, type Engine } from '@aisle/engine';
import { collectDefaultMetrics, Counter, Registry, type MetricValueWithName } from 'prom-client';

/** Upper bounds of the latency histogram's buckets, in seconds. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const DURATION_NAME = 'aisle_http_request_duration_seconds';

/**
 * What one (method, route) pair has seen, in plain numbers: prom-client hashes and checks the label
 * values on every `observe` and `inc`, even through a labelled child, which cost a short request about
 * 6 µs; here a request adds to numbers found through two map look-ups, and prom-client reads them at
 * scrape time.
 */
interface RouteSeries {
  labels: { method: string; route: string };
  /** Observations per bucket (not cumulative), one per bound. */
  buckets: number[];
  sum: number;
  count: number;
  /** Requests by status. */
  statuses: Map<number, number>;
}

/** The listener's metrics. */
export class HttpMetrics {
  readonly registry: Registry;
  /** Series by method, then route template: no key string is built per request. */
  private readonly series = new Map<string, Map<string, RouteSeries>>();

  constructor(options: { registry?: Registry; defaultMetrics?: boolean } = {}) {
    this.registry = options.registry ?? new Registry();
    const series = this.series;
    new Counter({
      name: 'aisle_http_requests_total',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const byRoute of series.values()) {
          for (const s of byRoute.values()) {
            for (const [status, n] of s.statuses) this.inc({ ...s.labels, status: String(status) }, n);
          }
        }
      },
    });
    // Registered as a metric object of its own (prom-client reads `get()` at scrape time, as it does for its own metrics).
    this.registry.registerMetric({
      name: DURATION_NAME,
      get: async () => this.durationHistogram(),
      reset: () => series.clear(),
    } as unknown as Parameters<Registry['registerMetric']>[0]);
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
    let byRoute = this.series.get(method);
    if (!byRoute) this.series.set(method, byRoute = new Map());
    let s = byRoute.get(route);
    if (!s) byRoute.set(route, s = { labels: { method, route }, buckets: DURATION_BUCKETS.map(() => 0), sum: 0, count: 0, statuses: new Map() });
    s.statuses.set(status, (s.statuses.get(status) ?? 0) + 1);
    s.sum += seconds;
    s.count++;
    const bucket = DURATION_BUCKETS.findIndex((bound) => seconds <= bound);
    if (bucket !== -1) s.buckets[bucket]!++;
  }

  /** The latency histogram in prom-client's exposition form: cumulative buckets, `+Inf`, sum and count per series. */
  private durationHistogram(): { name: string; help: string; type: 'histogram'; values: MetricValueWithName<string>[]; aggregator: 'sum' } {
    const values: MetricValueWithName<string>[] = [];
    for (const byRoute of this.series.values()) {
      for (const s of byRoute.values()) {
        let cumulative = 0;
        DURATION_BUCKETS.forEach((bound, i) => {
          cumulative += s.buckets[i]!;
          values.push({ metricName: `${DURATION_NAME}_bucket`, labels: { le: bound, ...s.labels }, value: cumulative });
        });
        values.push(
          { metricName: `${DURATION_NAME}_bucket`, labels: { le: '+Inf', ...s.labels }, value: s.count },
          { metricName: `${DURATION_NAME}_sum`, labels: s.labels, value: s.sum },
          { metricName: `${DURATION_NAME}_count`, labels: s.labels, value: s.count },
        );
      }
    }
    return { name: DURATION_NAME, help: 'HTTP request latency by method and route template', type: 'histogram', values, aggregator: 'sum' };
  }

  /** The Prometheus text exposition. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
