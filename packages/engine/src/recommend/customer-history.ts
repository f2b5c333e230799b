/**
 * What each customer viewed and bought, bounded per customer:
 * - the latest session's views, newest first, deduplicated (at most `sessionCap`);
 * - views of earlier sessions, newest first, deduplicated, at most `historicCap` (spec: 20);
 * - the latest distinct purchased items, newest first (at most `purchasedCap`), for customer-level
 *   co-purchase.
 *
 * A view whose session id differs from the customer's current one starts a new session: the current
 * session's items move to the historic list. Views of one customer are expected in time order (as they
 * arrive live and as they are replayed); a late view of an earlier session is not told apart by its
 * time (devices' clocks differ): it starts a session again, and the interrupted one becomes history.
 * @module
 */

import type { ModelState } from './model-state.js';

/** The bounded history of one customer (item ids are interned RefIds). */
export interface CustomerState {
  sessionId: string;
  /** Latest session, newest first, distinct. */
  recent: number[];
  /** Earlier sessions, newest first, distinct. */
  historic: number[];
  /** Purchased items, newest first, distinct. */
  purchased: number[];
  lastViewAt: number;
}

/** Moves `item` to the front of `list` (dropping an older copy), keeping at most `cap` entries. Returns true when it was new. */
export function pushFront(list: number[], item: number, cap: number): boolean {
  const at = list.indexOf(item);
  if (at === 0) return false;
  if (at > 0) list.splice(at, 1);
  list.unshift(item);
  if (list.length > cap) list.length = cap;
  return at < 0;
}

/** Customers' view and purchase histories. */
export class CustomerHistory {
  private readonly customers = new Map<string, CustomerState>();

  constructor(readonly sessionCap: number, readonly historicCap: number, readonly purchasedCap: number) {}

  get(customerId: string): CustomerState | undefined {
    return this.customers.get(customerId);
  }

  get size(): number {
    return this.customers.size;
  }

  /**
   * Records a view. Returns the items viewed earlier in the same session when `item` is new to it
   * (the pairs to count as viewed together), or undefined when the item was already in the session.
   */
  recordView(customerId: string, sessionId: string, item: number, time: number): { newInSession: boolean; sessionItems: readonly number[] } {
    let state = this.customers.get(customerId);
    if (!state) {
      state = { sessionId, recent: [], historic: [], purchased: [], lastViewAt: time };
      this.customers.set(customerId, state);
    } else if (state.sessionId !== sessionId) {
      // A new session: the previous one becomes history (oldest of it last).
      for (let k = state.recent.length - 1; k >= 0; k--) pushFront(state.historic, state.recent[k]!, this.historicCap);
      state.recent = [];
      state.sessionId = sessionId;
    }
    state.lastViewAt = Math.max(state.lastViewAt, time);
    const before = state.recent.slice();
    const isNew = pushFront(state.recent, item, this.sessionCap);
    return { newInSession: isNew, sessionItems: isNew ? before : [] };
  }

  /**
   * Writes every customer's history under `prefix` (see model-state.ts): ids and session ids as
   * values, the three lists back to back in one array with their lengths.
   */
  saveState(state: ModelState, prefix: string): void {
    const ids: string[] = [];
    const sessions: string[] = [];
    const lastViewAt = new Float64Array(this.customers.size);
    const lengths = new Uint16Array(3 * this.customers.size);
    let total = 0;
    for (const c of this.customers.values()) total += c.recent.length + c.historic.length + c.purchased.length;
    const items = new Int32Array(total);
    let at = 0;
    let k = 0;
    for (const [id, c] of this.customers) {
      ids.push(id);
      sessions.push(c.sessionId);
      lastViewAt[k] = c.lastViewAt;
      [c.recent, c.historic, c.purchased].forEach((list, j) => {
        lengths[3 * k + j] = list.length;
        items.set(list, at);
        at += list.length;
      });
      k++;
    }
    state.putValue(`${prefix}.ids`, ids);
    state.putValue(`${prefix}.sessions`, sessions);
    state.putArray(`${prefix}.lastViewAt`, lastViewAt);
    state.putArray(`${prefix}.lengths`, lengths);
    state.putArray(`${prefix}.items`, items);
  }

  /** Replaces every customer's history with the ones saved under `prefix`. */
  loadState(state: ModelState, prefix: string): void {
    const ids = state.value(`${prefix}.ids`);
    const sessions = state.value(`${prefix}.sessions`);
    const lastViewAt = state.array(`${prefix}.lastViewAt`, Float64Array);
    const lengths = state.array(`${prefix}.lengths`, Uint16Array);
    const items = state.array(`${prefix}.items`, Int32Array);
    if (!Array.isArray(ids) || !Array.isArray(sessions) || sessions.length !== ids.length || lastViewAt.length !== ids.length || lengths.length !== 3 * ids.length) {
      throw new Error(`model state ${prefix}: the customer histories do not fit together`);
    }
    this.customers.clear();
    let at = 0;
    for (let k = 0; k < ids.length; k++) {
      const lists = [0, 1, 2].map((j) => {
        const list = Array.from(items.subarray(at, at + lengths[3 * k + j]!));
        at += list.length;
        return list;
      });
      this.customers.set(String(ids[k]), { sessionId: String(sessions[k]), recent: lists[0]!, historic: lists[1]!, purchased: lists[2]!, lastViewAt: lastViewAt[k]! });
    }
    if (at !== items.length) throw new Error(`model state ${prefix}: the customer histories do not fit together`);
  }

  /** Records a purchase of `items`; returns the customer's items bought before (excluding these). */
  recordPurchase(customerId: string, items: readonly number[]): number[] {
    let state = this.customers.get(customerId);
    if (!state) {
      state = { sessionId: '', recent: [], historic: [], purchased: [], lastViewAt: Number.NEGATIVE_INFINITY };
      this.customers.set(customerId, state);
    }
    const set = new Set(items);
    const earlier = state.purchased.filter((i) => !set.has(i));
    for (let k = items.length - 1; k >= 0; k--) pushFront(state.purchased, items[k]!, this.purchasedCap);
    return earlier;
  }
}
