/**
 * The result lists the engine answered (search pages, recommendation and bundle responses), remembered
 * under their `query_id`/`queryId` (signed for their website: query-ids.ts) so that clicks and views
 * naming one can be checked and attributed, on whichever replica they arrive.
 *
 * Answering never waits for the store: {@link ResultPages.record} issues the id, keeps the list in a
 * bounded in-memory map of recent lists and queues it — or, when it is the same list as the website's
 * last one, still queued, under the next id of the same signature, counts it in that list's `span`
 * (decision 0091: a busy endpoint answers the same list answer after answer, and a list kept and stored
 * per answer was most of what an answer cost the store) —; the queue is written in one statement about every
 * {@link RESULT_PAGE_FLUSH_MS} (a group commit of all the lists answered meanwhile, off the answer's
 * path). A look-up ({@link ResultPages.find}) reads the recent lists first, then the store; an id still
 * missing that was issued less than {@link CROSS_REPLICA_GRACE_MS} ago (another replica answered it and
 * its write may be on its way) is looked up again every two flush intervals until that time has passed,
 * before it is called unknown. The store keeps each website's lists for its attribution window (at least
 * {@link MIN_RETENTION_DAYS}) and at most {@link MAX_STORED_LISTS_PER_WEBSITE} of them, pruned every
 * {@link RESULT_PAGE_PRUNE_MS}. docs/events-and-stores.md, "Result lists and clicks".
 * @module
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { RETENTION_BATCH, type ResultPageRecord, type ResultPageRetention, type Store } from '../store/store.js';
import { MAX_SPAN, QueryIdIssuer, queryIdIssuedAt, spanStarts } from './query-ids.js';

/** How often the queued lists are written to the store. */
export const RESULT_PAGE_FLUSH_MS = 100;
/** How long after its answer a list of another replica is waited for (its flush interval, a commit, clock skew). */
export const CROSS_REPLICA_GRACE_MS = 2_000;
/** Most lists kept in memory (of every website) for look-ups without the store. */
export const MAX_RECENT_LISTS = 20_000;
/** Most lists waiting for the store while its writes fail; beyond, the oldest are dropped (and reported). */
export const MAX_PENDING_LISTS = 100_000;
/** Most lists of one website kept in the store. */
export const MAX_STORED_LISTS_PER_WEBSITE = 20_000_000;
/** The shortest retention of the stored lists, whatever the attribution window. */
export const MIN_RETENTION_DAYS = 1;
/** How often the stored lists past their retention are deleted. */
export const RESULT_PAGE_PRUNE_MS = 10 * 60_000;

const DAY_MS = 86_400_000;

/** A list to remember: everything but the id and time, which {@link ResultPages.record} sets. */
export type AnsweredList = Omit<ResultPageRecord, 'queryId' | 'createdAt'>;

/** Options of {@link ResultPages}. */
export interface ResultPagesOptions {
  /** Clock (ms since the epoch); default `Date.now`. */
  now?: () => number;
  /** The attribution window of a website, in days (lists are kept at least that long). */
  attributionWindowDays: (websiteId: string) => number;
  /** The secret that signs a website's list ids (its `hmacSecret`, shared by its replicas). */
  secretOf: (websiteId: string) => string;
  /** The websites whose lists are pruned. */
  websites: () => readonly string[];
  /** Called when a write or a prune fails (the write is retried with the next flush). */
  onError: (err: unknown) => void;
}

/** The retention of one website's stored lists at `now` (pure). */
export function retentionOf(websiteId: string, windowDays: number, now: number): ResultPageRetention {
  return { websiteId, before: now - Math.max(windowDays, MIN_RETENTION_DAYS) * DAY_MS, keep: MAX_STORED_LISTS_PER_WEBSITE };
}

/** The list of a website that the next same answer may join (see {@link ResultPages.record}). */
interface OpenSpan {
  page: ResultPageRecord;
  /** Its ids' signature (`QueryIdIssuer.lastSignature`) and its first id's counter. */
  signature: number;
  first: number;
}

/**
 * Whether an answered list is the same as a kept one: what a click on it is checked against and
 * attributed to. A list of an experiment never is (its customer and teams are its own). Pure.
 */
function sameList(page: ResultPageRecord, list: AnsweredList): boolean {
  if (page.experiment !== undefined || list.experiment !== undefined) return false;
  if (page.kind !== list.kind || page.source !== list.source || page.variant !== list.variant || page.customerId !== list.customerId
    || page.sessionId !== list.sessionId || page.firstPosition !== list.firstPosition || page.refIds.length !== list.refIds.length) return false;
  for (let i = 0; i < page.refIds.length; i++) if (page.refIds[i] !== list.refIds[i]) return false;
  return true;
}

/**
 * The list that answered `queryId` among the lists found under its span's possible first ids
 * (`spanStarts`, nearest first): the nearest one, if its span reaches the id — an id past its span was
 * answered by another list, or never. Returned under the asked id, as one answer. Pure.
 */
function answeredBy(queryId: string, starts: readonly string[], found: (id: string) => ResultPageRecord | undefined): ResultPageRecord | undefined {
  for (let distance = 0; distance < starts.length; distance++) {
    const page = found(starts[distance]!);
    if (page === undefined) continue;
    if (distance >= (page.span ?? 1)) return undefined;
    if (distance === 0 && page.span === undefined) return page;
    const answer: ResultPageRecord = { ...page, queryId };
    delete answer.span;
    return answer;
  }
  return undefined;
}

/**
 * The record of an answered list: its fields, its id and time. Written out rather than `{ ...list,
 * queryId, createdAt }`: V8 takes a slow path for a spread followed by more properties (1.5 µs here, on
 * every answer; docs/benchmarks.md, "Speed, round three"). Pure.
 */
function keptList(list: AnsweredList, queryId: string, createdAt: number): ResultPageRecord {
  const page: ResultPageRecord = {
    websiteId: list.websiteId, queryId, kind: list.kind, source: list.source, variant: list.variant, customerId: list.customerId,
    sessionId: list.sessionId, firstPosition: list.firstPosition, refIds: list.refIds, createdAt,
  };
  if (list.experiment !== undefined) page.experiment = list.experiment;
  return page;
}

/** See the module comment. */
export class ResultPages {
  /**
   * Recent lists by id, in two generations of at most half of {@link MAX_RECENT_LISTS} each: when the
   * current one is full it becomes the previous one (dropping the older). Deleting a Map's oldest entry
   * one at a time would make each later deletion walk the holes the earlier ones left.
   */
  private recent = new Map<string, ResultPageRecord>();
  private previous = new Map<string, ResultPageRecord>();
  private pending: ResultPageRecord[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  /** The prune running, awaited by close (the store must not close under it). */
  private pruning: Promise<void> | undefined;
  private closed = false;
  private readonly now: () => number;
  /** The lists' ids, signed a few at a time for busy websites. */
  private readonly ids = new QueryIdIssuer();
  /** Each website's last list while it is queued: the next same answer joins its span. */
  private readonly open = new Map<string, OpenSpan>();

  constructor(private readonly store: Store, private readonly options: ResultPagesOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Prunes the stored lists now (in the background: a service restarted often still prunes), then periodically. */
  startPruning(): void {
    if (this.pruneTimer !== undefined) return;
    void this.prune();
    this.pruneTimer = setInterval(() => void this.prune(), RESULT_PAGE_PRUNE_MS);
    this.pruneTimer.unref();
  }

  /** Remembers an answered list and returns its new id (the list reaches the store with the next flush). */
  record(list: AnsweredList): string {
    const createdAt = this.now();
    const queryId = this.ids.issue(createdAt, list.websiteId, this.options.secretOf(list.websiteId));
    const { lastSignature: signature, lastCounter: counter } = this.ids;
    const open = this.open.get(list.websiteId);
    if (open !== undefined && open.signature === signature && open.first + (open.page.span ?? 1) === counter
      && counter - open.first < MAX_SPAN && sameList(open.page, list)) {
      open.page.span = counter - open.first + 1;
      return queryId;
    }
    const page = keptList(list, queryId, createdAt);
    this.open.set(list.websiteId, { page, signature, first: counter });
    if (this.recent.size >= MAX_RECENT_LISTS / 2) {
      this.previous = this.recent;
      this.recent = new Map();
    }
    this.recent.set(page.queryId, page);
    this.pending.push(page);
    if (this.pending.length > MAX_PENDING_LISTS) {
      // A tenth at a time, said once: one list dropped (an array shifted, an error reported) on every
      // answer made each answer cost ~30 µs more while the store was away.
      const dropped = this.pending.splice(0, this.pending.length - MAX_PENDING_LISTS + MAX_PENDING_LISTS / 10);
      this.options.onError(new Error(`${dropped.length} result lists were dropped: the store has not taken them for too long`));
    }
    if (this.flushTimer === undefined && !this.closed) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = undefined;
        void this.flush();
      }, RESULT_PAGE_FLUSH_MS);
      this.flushTimer.unref();
    }
    return page.queryId;
  }

  /**
   * The lists of a website among `queryIds` (the ids not found are missing from the map): ids not
   * signed for the website are not looked up; the others are found among the recent lists, then in the
   * store, then, for ids issued within {@link CROSS_REPLICA_GRACE_MS}, in the store again until they
   * are found or that time has passed.
   */
  async find(websiteId: string, queryIds: readonly string[]): Promise<Map<string, ResultPageRecord>> {
    const found = new Map<string, ResultPageRecord>();
    const secret = this.options.secretOf(websiteId);
    /** Issue time of each id issued for this website; ids that were not are never looked up. */
    const issuedAt = new Map<string, number>();
    let missing: string[] = [];
    const recent = (id: string) => this.recent.get(id) ?? this.previous.get(id);
    for (const id of queryIds) {
      const issued = queryIdIssuedAt(id, websiteId, secret);
      if (issued === undefined) continue;
      issuedAt.set(id, issued);
      const page = answeredBy(id, spanStarts(id), recent);
      if (page === undefined) missing.push(id);
      else if (page.websiteId === websiteId) found.set(id, page);
    }
    if (missing.length === 0) return found;
    // Each id asked with the ids that may start its span, in one look-up.
    const fromStore = async (ids: readonly string[]): Promise<string[]> => {
      const starts = ids.map(spanStarts);
      const stored = new Map((await this.store.findResultPages(websiteId, starts.flat())).map((page) => [page.queryId, page]));
      ids.forEach((id, i) => {
        const page = answeredBy(id, starts[i]!, (start) => stored.get(start));
        if (page !== undefined) found.set(id, page);
      });
      return ids.filter((id) => !found.has(id));
    };
    missing = await fromStore(missing);
    // Ids issued within the grace time: asked again every two flush intervals until found or the grace is over.
    const graceEnd = (id: string): number => issuedAt.get(id)! + CROSS_REPLICA_GRACE_MS;
    let waiting = missing.filter((id) => graceEnd(id) > this.now());
    while (waiting.length > 0 && !this.closed) {
      const wait = Math.min(2 * RESULT_PAGE_FLUSH_MS, Math.max(...waiting.map(graceEnd)) - this.now());
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
      const stillMissing = await fromStore(waiting);
      waiting = stillMissing.filter((id) => graceEnd(id) > this.now());
    }
    return found;
  }

  /** Writes the queued lists (one write at a time; a failed write keeps them queued and is reported). */
  async flush(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    // A list on its way to the store takes no more answers (its row would not say so).
    this.open.clear();
    this.writing = this.store.addResultPages(batch).then(() => undefined, (err: unknown) => {
      this.pending = [...batch, ...this.pending];
      this.options.onError(err);
    }).finally(() => {
      this.writing = undefined;
    });
    await this.writing;
  }

  /**
   * Deletes the stored lists past each website's retention, {@link RETENTION_BATCH} per website and
   * short transaction with a turn of the event loop between two (an answer's list write or a click never
   * waits behind a long delete); a failure is reported, and retried at the next prune.
   */
  async prune(): Promise<void> {
    if (this.pruning !== undefined || this.closed) return this.pruning;
    const now = this.now();
    const retention = this.options.websites().map((id) => retentionOf(id, this.options.attributionWindowDays(id), now));
    this.pruning = (async () => {
      while (!this.closed && await this.store.pruneResultPages(retention, RETENTION_BATCH) >= RETENTION_BATCH) await nextTurn();
    })().catch((err: unknown) => this.options.onError(err)).finally(() => { this.pruning = undefined; });
    return this.pruning;
  }

  /** Stops the timers and writes what is queued. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.flushTimer);
    clearInterval(this.pruneTimer);
    await this.pruning;
    await this.flush();
  }
}
