/**
 * Failures of work no caller waits for — snapshot writes, replica polling, feeding events to the
 * recommendation models, closing log segments — are never silent: each is logged through the
 * engine's logger, counted per task (the adapter exports the counts in `/metrics`), and passed to
 * the embedding service's error hook.
 * @module
 */

import type { ClickOutcome } from './types.js';

/**
 * The logger the engine writes to: a pino logger fits as is (`createEngine({ logger: pino() })`);
 * any object with these methods does.
 */
export interface EngineLogger {
  error(details: object, message?: string): void;
  warn(details: object, message?: string): void;
  info(details: object, message?: string): void;
}

/**
 * The kinds of background work whose failures are reported (`semantic-embedding`: a search whose
 * semantic model failed was answered in the plain order; `snapshot-load`: a start found the latest
 * catalog snapshot unreadable and loaded the previous one, see catalog/durability/snapshot-generations.ts;
 * `model-checkpoint`: a recommendation models' checkpoint could not be written, or was not used at a start;
 * `merchandising-rule`: a saved rule's boost whose scope no longer fits the catalog, skipped by searches —
 * a warning, once per settings version; `result-pages`: writing or pruning the remembered result lists
 * that clicks name; `click-learning`: reading the stored clicks into the learned ranking state;
 * `index-build`: a recommendation index, a catalog's completion after its load, the hierarchies of settings
 * put in force, a catalog's background merge, or a catalog version listener that threw).
 */
export const BACKGROUND_TASKS = ['snapshot-write', 'snapshot-load', 'model-checkpoint', 'replica-poll', 'settings-poll', 'experiments', 'search-log', 'retention', 'result-pages', 'click-learning', 'event-sink', 'change-log', 'index-build', 'semantic-training', 'semantic-embedding', 'merchandising-rule', 'shutdown'] as const;

/** One kind of background work. */
export type BackgroundTask = (typeof BACKGROUND_TASKS)[number];

/** What failed in the background, as passed to {@link EngineHooks.onError}. */
export interface BackgroundFailure {
  task: BackgroundTask;
  /** The website concerned, when the work belongs to one. */
  websiteId?: string;
}

/** Library-only options of `createEngine` (not config-file keys). */
export interface EngineHooks {
  /** Where the engine logs background failures (pino-compatible). Default: a process warning per failure. */
  logger?: EngineLogger;
  /**
   * Called with every background failure, after it is logged and counted; a poll of a shared store
   * retried every interval calls it once per outage ({@link FailureReporter.reportRetried}).
   */
  onError?: (error: unknown, failure: BackgroundFailure) => void;
  /**
   * The click analytics hook (for roll-ups; no stability promise): called after a click on a result
   * list is durable, and after a purchased line is attributed to such a click. A throw is reported as an
   * `event-sink` failure; the event stays acknowledged.
   */
  onClickOutcome?: (outcome: ClickOutcome) => void;
}

/** Logs, counts and hands on background failures. */
export class FailureReporter {
  private readonly counts = new Map<BackgroundTask, number>();
  /** The latest failure of each task (readiness reports the ones that still matter). */
  private readonly latest = new Map<BackgroundTask, { message: string; at: number; websiteId?: string }>();
  /** The tasks retried on a timer that are failing now: when the first failure was, and the attempts since. */
  private readonly outages = new Map<BackgroundTask, { since: number; attempts: number }>();

  constructor(private readonly hooks: EngineHooks = {}) {}

  /**
   * Reports one failure; `doing` (optional) says what the work was doing. Never throws (a broken
   * hook must not break the engine).
   */
  report(task: BackgroundTask, error: unknown, websiteId?: string, doing?: string): void {
    this.record('error', task, error, websiteId, doing);
  }

  /**
   * Reports a failure of work retried on a timer (a poll of the shared store): the first failure of an
   * outage is reported as {@link report} does; the next ones, until {@link recovered}, only update the
   * latest failure's message. A PostgreSQL outage is thus one log line, one count and one hook call per
   * task, not one per poll interval (four tasks at every 200 ms poll filled the log with stack traces).
   */
  reportRetried(task: BackgroundTask, error: unknown, websiteId?: string): void {
    const outage = this.outages.get(task);
    if (outage === undefined) {
      this.outages.set(task, { since: Date.now(), attempts: 1 });
      this.record('error', task, error, websiteId);
      return;
    }
    outage.attempts += 1;
    this.latest.set(task, { message: error instanceof Error ? error.message : String(error), at: Date.now(), ...(websiteId !== undefined && { websiteId }) });
  }

  /**
   * Reports a problem that degrades work without failing it (a merchandising boost skipped): counted
   * and handed on as {@link report} does, logged at level warn.
   */
  warn(task: BackgroundTask, error: unknown, websiteId?: string): void {
    this.record('warn', task, error, websiteId);
  }

  private record(level: 'error' | 'warn', task: BackgroundTask, error: unknown, websiteId?: string, doing?: string): void {
    this.counts.set(task, (this.counts.get(task) ?? 0) + 1);
    const cause = error instanceof Error ? error.message : String(error);
    // What the work was doing, when the task alone does not say it (e.g. which replication step).
    const message = doing === undefined ? cause : `${doing}: ${cause}`;
    this.latest.set(task, { message, at: Date.now(), ...(websiteId !== undefined && { websiteId }) });
    const details = { err: error, task, ...(websiteId !== undefined && { websiteId }) };
    try {
      if (this.hooks.logger) this.hooks.logger[level](details, `aisle: background ${task} failed: ${message}`);
      else process.emitWarning(`aisle: background ${task} failed${websiteId ? ` (website ${websiteId})` : ''}: ${message}`);
      this.hooks.onError?.(error, { task, ...(websiteId !== undefined && { websiteId }) });
    } catch (hookError) {
      process.emitWarning(`aisle: the error hook failed: ${(hookError as Error)?.message ?? String(hookError)}`);
    }
  }

  /** Failures so far, per task (every task listed, 0 when none). */
  failureCounts(): Record<BackgroundTask, number> {
    const out = {} as Record<BackgroundTask, number>;
    for (const task of BACKGROUND_TASKS) out[task] = this.counts.get(task) ?? 0;
    return out;
  }

  /** The latest failure of `task`, if any. */
  lastFailure(task: BackgroundTask): { message: string; at: number; websiteId?: string } | undefined {
    return this.latest.get(task);
  }

  /** Waits for `work` during shutdown or cleanup: a failure is reported, not thrown. */
  async settle(work: Promise<unknown> | undefined, task: BackgroundTask, websiteId?: string): Promise<void> {
    try {
      await work;
    } catch (err) {
      this.report(task, err, websiteId);
    }
  }

  /**
   * Forgets the latest failure of `task` (the work succeeded since). After an outage reported by
   * {@link reportRetried}, says at level info that the task works again (the operator saw one error line
   * and would otherwise not know that it ended), with the failed attempts and the outage's length.
   */
  recovered(task: BackgroundTask): void {
    this.latest.delete(task);
    const outage = this.outages.get(task);
    if (outage === undefined) return;
    this.outages.delete(task);
    const ms = Date.now() - outage.since;
    try {
      this.hooks.logger?.info({ task, failedAttempts: outage.attempts, ms }, `aisle: background ${task} works again after ${outage.attempts} failed attempts in ${ms} ms`);
    } catch (logError) {
      process.emitWarning(`aisle: the logger failed: ${(logError as Error)?.message ?? String(logError)}`);
    }
  }
}
