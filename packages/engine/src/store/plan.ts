/**
 * The pure heart of every store's group commit: given the writes of one batch (in arrival order) and
 * what the store already holds for the keys they touch, decide which rows to insert, which coupons to
 * create or bind, and what each write answers. Stores only look the keys up and write the plan inside
 * one transaction, so all three implementations share the same idempotency and coupon semantics.
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import type {
  ClickAppend, ClickAppendResult, ClickConflict, ClickEventData, CouponIssueConflict, CouponIssueData, CouponRecord, OrderOutcome, PurchaseAppend, PurchaseAppendResult, PurchaseEventData, ViewAppend,
} from './store.js';

/**
 * An admin issue of codes against the codes the website holds (`existing`: code → coupon): the codes to
 * insert, or the conflicts, when a known code comes with a `customerId` or `discount` other than the
 * stored one (then nothing is to be stored). What the issue leaves out is not compared: a code issued
 * unbound may have been bound since by the first purchase carrying it, and an issue that names no
 * discount asks for none to be changed. Storing nothing new and answering `issued: 0` would drop the
 * content the issue sent without anyone being told, as a replayed orderId with other content would.
 * `coupons` holds each code once.
 */
export function planCouponIssue(coupons: readonly CouponIssueData[], existing: ReadonlyMap<string, CouponRecord>): { fresh: CouponIssueData[]; conflicts: CouponIssueConflict[] } {
  const fresh: CouponIssueData[] = [];
  const conflicts: CouponIssueConflict[] = [];
  coupons.forEach((c, index) => {
    const stored = existing.get(c.code);
    if (stored === undefined) {
      fresh.push(c);
      return;
    }
    const fields: CouponIssueConflict['fields'] = [];
    if (c.customerId !== undefined && c.customerId !== stored.customerId) fields.push('customerId');
    if (c.discount !== undefined && c.discount !== stored.discount) fields.push('discount');
    if (fields.length > 0) conflicts.push({ index, code: c.code, fields, storedDiscount: stored.discount, storedBound: stored.customerId !== null });
  });
  return { fresh, conflicts };
}

/** One write waiting in a group-commit batch. */
export type AppendOp =
  | { kind: 'purchase'; append: PurchaseAppend }
  | { kind: 'view'; append: ViewAppend }
  | { kind: 'click'; append: ClickAppend };

/** What one write answers once its batch has committed. */
export type AppendOpResult = PurchaseAppendResult | { recorded: number } | ClickAppendResult;

/** A row of the `clicks` table. */
export interface ClickRow {
  websiteId: string;
  /** Null when the click carries no clickId (then it is never a duplicate). */
  clickId: string | null;
  transactionId: string;
  customerId: string;
  sessionId: string;
  refId: string;
  eventTime: number;
  origin: string;
  receivedAt: number;
  /** JSON of the {@link ClickEventData}. */
  payload: string;
}

/** A row of the `events` table. */
export interface EventRow {
  websiteId: string;
  kind: 'purchase' | 'view';
  /** Null for views. */
  orderId: string | null;
  transactionId: string;
  customerId: string;
  sessionId: string;
  eventTime: number;
  origin: string;
  receivedAt: number;
  /** JSON of the {@link PurchaseEventData} or view data. */
  payload: string;
}

/** An order the store already holds, as the batch's idempotency check reads it. */
export interface StoredOrder {
  transactionId: string;
  customerId: string;
  /** The stored event's JSON ({@link EventRow.payload}). */
  payload: string;
}

/**
 * The content of a purchase event that decides whether a replay is the same order: the event as sent
 * (its time as an instant, not as text) and its customer. The store's own annotations (`reused` on a
 * promotion) are not content. Both sides go through JSON, so absent and `undefined` keys compare alike.
 */
function orderContent(customerId: string, event: PurchaseEventData): unknown {
  const { eventTime: _text, priceBeatPromotions, ...rest } = JSON.parse(JSON.stringify(event)) as PurchaseEventData;
  return { customerId, ...rest, priceBeatPromotions: priceBeatPromotions.map(({ reused: _reused, ...promo }) => promo) };
}

/** Whether `event` from `customerId` replays `stored` exactly (pure). */
export function replaysOrder(stored: StoredOrder, customerId: string, event: PurchaseEventData): boolean {
  return isDeepStrictEqual(orderContent(stored.customerId, JSON.parse(stored.payload) as PurchaseEventData), orderContent(customerId, event));
}

/**
 * The orders of a purchase append that replay an orderId (stored, or earlier in the same request) with
 * other content, each with the transactionId it was first recorded under. Pure.
 */
function conflictingOrders(a: PurchaseAppend, stored: ReadonlyMap<string, StoredOrder>): OrderOutcome[] {
  const inRequest = new Map<string, StoredOrder>();
  const conflicts: OrderOutcome[] = [];
  for (const event of a.events) {
    const key = orderKey(a.websiteId, event.orderId);
    const first = stored.get(key) ?? inRequest.get(key);
    if (first === undefined) inRequest.set(key, { transactionId: a.transactionId, customerId: a.customerId, payload: JSON.stringify(event) });
    else if (!replaysOrder(first, a.customerId, event)) conflicts.push({ orderId: event.orderId, status: 'conflict', transactionId: first.transactionId });
  }
  return conflicts;
}

/** A coupon to insert (`isNew`) or whose customer binding to set (only where still unbound). */
export interface CouponWrite {
  record: CouponRecord;
  isNew: boolean;
}

/** The writes of one batch and the answers of its operations (same order as the ops). */
export interface BatchPlan {
  rows: EventRow[];
  clickRows: ClickRow[];
  couponWrites: CouponWrite[];
  results: AppendOpResult[];
}

const SEP = '\u0000';

/** Map key of an order: (websiteId, orderId). */
export function orderKey(websiteId: string, orderId: string): string {
  return websiteId + SEP + orderId;
}

/** Map key of a coupon: (websiteId, code). */
export function couponKey(websiteId: string, code: string): string {
  return websiteId + SEP + code;
}

/** Map key of a click: (websiteId, clickId). */
export function clickKey(websiteId: string, clickId: string): string {
  return websiteId + SEP + clickId;
}

/** The order, coupon and click keys a batch touches, deduplicated, for the stores' look-ups. */
export function batchLookupKeys(ops: readonly AppendOp[]): {
  orders: { websiteId: string; orderId: string }[];
  coupons: { websiteId: string; code: string }[];
  clicks: { websiteId: string; clickId: string }[];
} {
  const orders = new Map<string, { websiteId: string; orderId: string }>();
  const coupons = new Map<string, { websiteId: string; code: string }>();
  const clicks = new Map<string, { websiteId: string; clickId: string }>();
  for (const op of ops) {
    if (op.kind === 'click') {
      const { websiteId } = op.append;
      for (const c of op.append.clicks) if (c.clickId !== undefined) clicks.set(clickKey(websiteId, c.clickId), { websiteId, clickId: c.clickId });
      continue;
    }
    if (op.kind !== 'purchase') continue;
    const { websiteId } = op.append;
    for (const event of op.append.events) {
      orders.set(orderKey(websiteId, event.orderId), { websiteId, orderId: event.orderId });
      for (const promo of event.priceBeatPromotions) coupons.set(couponKey(websiteId, promo.code), { websiteId, code: promo.code });
    }
  }
  return { orders: [...orders.values()], coupons: [...coupons.values()], clicks: [...clicks.values()] };
}

/** A click the store already holds under its clickId, as the batch's idempotency check reads it. */
export interface StoredClickRef {
  transactionId: string;
  customerId: string;
  sessionId: string;
  /** The stored click's JSON ({@link ClickRow.payload}). */
  payload: string;
}

/**
 * The content of a click that decides whether a replay is the same click: the click as sent (its time as
 * an instant, not as text), its customer and session. The result list resolved when it was recorded is
 * the store's annotation, not content. Both sides go through JSON, as for orders.
 */
function clickContent(customerId: string, sessionId: string, click: ClickEventData): unknown {
  const { eventTime: _text, list: _list, ...rest } = JSON.parse(JSON.stringify(click)) as ClickEventData;
  return { customerId, sessionId, ...rest };
}

/** Whether `click` from `customerId` in `sessionId` replays `stored` exactly (pure). */
export function replaysClick(stored: StoredClickRef, customerId: string, sessionId: string, click: ClickEventData): boolean {
  return isDeepStrictEqual(clickContent(stored.customerId, stored.sessionId, JSON.parse(stored.payload) as ClickEventData), clickContent(customerId, sessionId, click));
}

/**
 * The rows of a click op and its answer: a click whose clickId is in `seenClicks` (stored before, or
 * earlier in the batch) with the same content is not stored again; with other content the whole request
 * is refused (`conflicts`), as an order is, since answering 202 would claim a click that was not stored.
 * `seenClicks` ({@link clickKey} → the click first stored) is updated with the clicks stored now.
 */
function planClicks(a: ClickAppend, seenClicks: Map<string, StoredClickRef>, clickRows: ClickRow[]): ClickAppendResult {
  const inRequest = new Map<string, StoredClickRef>();
  const conflicts: ClickConflict[] = [];
  const payloads = a.clicks.map((click) => JSON.stringify(click));
  a.clicks.forEach((click, index) => {
    if (click.clickId === undefined) return;
    const key = clickKey(a.websiteId, click.clickId);
    const first = seenClicks.get(key) ?? inRequest.get(key);
    if (first === undefined) inRequest.set(key, { transactionId: a.transactionId, customerId: a.customerId, sessionId: a.sessionId, payload: payloads[index]! });
    else if (!replaysClick(first, a.customerId, a.sessionId, click)) conflicts.push({ index, clickId: click.clickId, transactionId: first.transactionId });
  });
  if (conflicts.length > 0) return { transactionId: a.transactionId, stored: [], conflicts };

  const stored: number[] = [];
  let firstDuplicateTransaction: string | undefined;
  a.clicks.forEach((click, i) => {
    if (click.clickId !== undefined) {
      const key = clickKey(a.websiteId, click.clickId);
      const first = seenClicks.get(key);
      if (first !== undefined) {
        firstDuplicateTransaction ??= first.transactionId;
        return;
      }
      seenClicks.set(key, { transactionId: a.transactionId, customerId: a.customerId, sessionId: a.sessionId, payload: payloads[i]! });
    }
    stored.push(i);
    clickRows.push({
      websiteId: a.websiteId, clickId: click.clickId ?? null, transactionId: a.transactionId, customerId: a.customerId, sessionId: a.sessionId,
      refId: click.refId, eventTime: click.eventTimeMs, origin: a.origin, receivedAt: a.receivedAt, payload: payloads[i]!,
    });
  });
  // As for orders: a request whose every click was already recorded answers the original transactionId.
  return { transactionId: stored.length > 0 || firstDuplicateTransaction === undefined ? a.transactionId : firstDuplicateTransaction, stored };
}

/**
 * Plans a batch. `existingOrders` maps {@link orderKey} → the order as first stored; `existingCoupons` maps
 * {@link couponKey} → coupon; `existingClicks` maps {@link clickKey} → the click as first stored, for the keys
 * of {@link batchLookupKeys} (missing = not stored).
 */
export function planBatch(
  ops: readonly AppendOp[],
  existingOrders: ReadonlyMap<string, StoredOrder>,
  existingCoupons: ReadonlyMap<string, CouponRecord>,
  existingClicks: ReadonlyMap<string, StoredClickRef> = new Map(),
): BatchPlan {
  const rows: EventRow[] = [];
  const clickRows: ClickRow[] = [];
  const seenClicks = new Map<string, StoredClickRef>(existingClicks);
  const results: AppendOpResult[] = [];
  const seenOrders = new Map<string, StoredOrder>(existingOrders);
  const coupons = new Map<string, CouponRecord>(existingCoupons);
  const couponWrites = new Map<string, CouponWrite>();

  for (const op of ops) {
    if (op.kind === 'click') {
      results.push(planClicks(op.append, seenClicks, clickRows));
      continue;
    }
    if (op.kind === 'view') {
      const a = op.append;
      for (const view of a.views) {
        rows.push({
          websiteId: a.websiteId, kind: 'view', orderId: null, transactionId: a.transactionId, customerId: a.customerId,
          sessionId: a.sessionId, eventTime: view.eventTimeMs, origin: a.origin, receivedAt: a.receivedAt, payload: JSON.stringify(view),
        });
      }
      results.push({ recorded: a.views.length });
      continue;
    }
    const a = op.append;
    // An orderId replayed with other content is refused whole: storing the rest of the request while
    // answering a conflict would not tell the truth about what was stored.
    const conflicts = conflictingOrders(a, seenOrders);
    if (conflicts.length > 0) {
      results.push({ transactionId: a.transactionId, orders: conflicts });
      continue;
    }
    const orders: OrderOutcome[] = [];
    let recorded = 0;
    for (const event of a.events) {
      const key = orderKey(a.websiteId, event.orderId);
      const first = seenOrders.get(key);
      if (first !== undefined) {
        orders.push({ orderId: event.orderId, status: 'duplicate', transactionId: first.transactionId });
        continue;
      }
      const stored: PurchaseEventData = { ...event, priceBeatPromotions: event.priceBeatPromotions.map((promo) => {
        const ck = couponKey(a.websiteId, promo.code);
        const coupon = coupons.get(ck);
        if (coupon === undefined) {
          const record: CouponRecord = {
            websiteId: a.websiteId, code: promo.code, customerId: a.customerId, discount: promo.discount,
            state: 'issued', source: 'purchase', issuedAt: a.receivedAt, usedAt: null,
          };
          coupons.set(ck, record);
          couponWrites.set(ck, { record, isNew: true });
          return { code: promo.code, discount: promo.discount };
        }
        const reused = coupon.state === 'used' && (coupon.customerId === null || coupon.customerId === a.customerId);
        if (coupon.customerId === null) {
          const record: CouponRecord = { ...coupon, customerId: a.customerId };
          coupons.set(ck, record);
          couponWrites.set(ck, { record, isNew: couponWrites.get(ck)?.isNew ?? false });
        }
        return reused ? { code: promo.code, discount: promo.discount, reused: true } : { code: promo.code, discount: promo.discount };
      }) };
      const payload = JSON.stringify(stored);
      seenOrders.set(key, { transactionId: a.transactionId, customerId: a.customerId, payload });
      rows.push({
        websiteId: a.websiteId, kind: 'purchase', orderId: event.orderId, transactionId: a.transactionId, customerId: a.customerId,
        sessionId: a.sessionId, eventTime: event.eventTimeMs, origin: a.origin, receivedAt: a.receivedAt, payload,
      });
      orders.push({ orderId: event.orderId, status: 'recorded', transactionId: a.transactionId, event: stored });
      recorded++;
    }
    const transactionId = recorded > 0 || orders.length === 0 ? a.transactionId : orders[0]!.transactionId;
    results.push({ transactionId, orders });
  }
  return { rows, clickRows, couponWrites: [...couponWrites.values()], results };
}
