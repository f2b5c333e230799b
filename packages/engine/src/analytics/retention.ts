/**
 * Retention: the raw rows older than a website's `eventRetentionDays` (logged search and
 * recommendation responses with their session evidence, stored views, purchases and clicks) are deleted in the
 * background, {@link RETENTION_BATCH} rows per short transaction with a turn of the event loop between
 * two, so a search or an event write never waits behind a long delete. Roll-ups are kept.
 * @module
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { WebsiteSettings } from '../config.js';
import { RETENTION_KINDS } from '../contract/settings-schema.js';
import { DAY_MS } from '../store/analytics-rows.js';
import type { Store } from '../store/store.js';
import { retentionDaysOf } from './analytics-settings.js';

/** Rows deleted per transaction (declared with the store, whose result lists are pruned so too). */
export { RETENTION_BATCH } from '../store/store.js';
import { RETENTION_BATCH } from '../store/store.js';
/** How often the retention pass runs. */
export const RETENTION_INTERVAL_MS = 10 * 60_000;
/**
 * When the first pass runs after a start: soon, since a process restarted more often than every
 * {@link RETENTION_INTERVAL_MS} (a crash loop, short-lived replicas) never deleted anything; not at
 * once, so that it stays out of the start's replay.
 */
export const RETENTION_FIRST_PASS_MS = 60_000;

/** Options of a {@link RetentionJob}. */
export interface RetentionOptions {
  /** The websites and their settings in force. */
  websites: () => Iterable<{ websiteId: string; settings: WebsiteSettings | undefined }>;
  now?: () => number;
  /** Called when a delete fails (the next pass tries again). */
  onError: (err: unknown, websiteId: string) => void;
}

/** Deletes expired raw rows, now and then. */
export class RetentionJob {
  private timer: NodeJS.Timeout | undefined;
  private first: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly store: Store, private readonly options: RetentionOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Runs a pass `firstAfterMs` after the start, then every `intervalMs`. */
  start(intervalMs = RETENTION_INTERVAL_MS, firstAfterMs = RETENTION_FIRST_PASS_MS): void {
    this.first = setTimeout(() => { void this.run(); }, firstAfterMs);
    this.first.unref();
    this.timer = setInterval(() => { void this.run(); }, intervalMs);
    this.timer.unref();
  }

  /** One pass over every website and kind (one at a time); resolves with the rows deleted. */
  run(): Promise<number> {
    this.running ??= this.pass().finally(() => { this.running = undefined; });
    return this.running;
  }

  private async pass(): Promise<number> {
    let total = 0;
    for (const { websiteId, settings } of this.options.websites()) {
      const days = retentionDaysOf(settings);
      for (const kind of RETENTION_KINDS) {
        const before = this.now() - days[kind] * DAY_MS;
        try {
          // A full batch may leave more behind (a kind of several tables deletes up to a batch from each).
          for (let deleted = RETENTION_BATCH; deleted >= RETENTION_BATCH && !this.stopped;) {
            deleted = await this.store.deleteExpired(websiteId, kind, before, RETENTION_BATCH);
            total += deleted;
            await nextTurn();
          }
        } catch (err) {
          this.options.onError(err, websiteId);
        }
      }
    }
    return total;
  }

  /** Stops the timer and waits for a pass under way (it stops after its current batch). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.first);
    clearInterval(this.timer);
    await this.running;
  }
}
