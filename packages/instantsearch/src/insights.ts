/**
 * An insights client for InstantSearch.js's insights middleware (`createInsightsMiddleware({ insightsClient })`,
 * or `instantsearch({ insights: { insightsClient } })`) that sends the shopper's clicks and conversions
 * to aisle's `POST /3.0/events/clicks`, with a browser key whose actions include `insights`. It speaks
 * the subset of search-insights' call signature (`client(method, payload)`) that the middleware and the
 * widgets' `sendEvent` use. Browser-safe (fetch and crypto.randomUUID only).
 *
 * | insights method | aisle click event |
 * |---|---|
 * | `clickedObjectIDsAfterSearch` `{queryID, objectIDs, positions}` | `type: "click"`, `queryId`, `position` per object |
 * | `convertedObjectIDsAfterSearch`, `addedToCartObjectIDsAfterSearch` `{queryID, objectIDs}` | `type: "addToCart"`, `queryId`, the position the page showed it at |
 * | `clickedObjectIDs`, `convertedObjectIDs`, `addedToCartObjectIDs` | `click` / `addToCart` without a result list |
 * | `viewedObjectIDs`, `purchasedObjectIDs…` | not sent (purchases come from the shop's backend, see docs/browser.md) |
 *
 * The user token (`setUserToken`, or the middleware's anonymous one) is the `customerId` when it holds a
 * GUID; otherwise the customer is the session. The session is the `sessionId` option (pass the same
 * one to the search client, which sends it as `session_id`), or a GUID made for this client.
 * @module
 */
import type { AisleClickEvent, AisleClickRequest } from './wire.js';

/** What an insights payload carries (the fields read here). */
export interface InsightsPayload {
  eventName?: string;
  index?: string;
  queryID?: string;
  objectIDs?: string[];
  positions?: number[];
  [field: string]: unknown;
}

/** Options of {@link aisleInsightsClient}. */
export interface AisleInsightsClientOptions {
  /** aisle's base URL (`''` for the page's own origin). */
  url: string;
  /** A browser key whose actions include `insights`. */
  key: string;
  /** The shopper's session (a GUID); default: one made for this client. */
  sessionId?: string;
  /** The position a result page showed a product at (the search client's `positionOf`), for conversions, which carry none. */
  positionOf?: (queryID: string, objectID: string) => number | undefined;
  /** Where failed sends go (default: `console.error`); a click is never retried. */
  onError?: (error: Error) => void;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

/** The insights client: search-insights' call signature, returning the send's promise for the events it maps. */
export interface AisleInsightsClient {
  (method: string, ...args: unknown[]): Promise<void> | undefined;
  /** A search-insights version with optional `init`, so the middleware does not require Algolia credentials. */
  readonly version: string;
}

const GUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** The events of one insights call (pure): one per object, with the list's id and the position when known. */
export function clickEventsOf(method: string, payload: InsightsPayload, positionOf: AisleInsightsClientOptions['positionOf'], eventTime: string): AisleClickEvent[] {
  const afterSearch = method.endsWith('AfterSearch');
  const kind = method.replace(/AfterSearch$/, '');
  const type = kind === 'clickedObjectIDs' ? 'click' : kind === 'convertedObjectIDs' || kind === 'addedToCartObjectIDs' ? 'addToCart' : undefined;
  if (type === undefined) return [];
  return (payload.objectIDs ?? []).map((refId, i) => {
    const event: AisleClickEvent = { eventTime, refId, type };
    const queryId = afterSearch ? payload.queryID : undefined;
    const position = queryId === undefined ? undefined : payload.positions?.[i] ?? positionOf?.(queryId, refId);
    // aisle checks the position against the list: without one, the event is sent without the list.
    if (queryId !== undefined && position !== undefined) Object.assign(event, { queryId, position });
    return event;
  });
}

/** Creates the client; see the module comment. */
export function aisleInsightsClient(options: AisleInsightsClientOptions): AisleInsightsClient {
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const endpoint = `${options.url.replace(/\/+$/, '')}/3.0/events/clicks`;
  const onError = options.onError ?? ((error: Error) => globalThis.console.error(error));
  const sessionId = options.sessionId ?? globalThis.crypto.randomUUID();
  let userToken: string | undefined;
  const listeners: ((token: string | undefined) => void)[] = [];

  const setUserToken = (token: unknown): void => {
    userToken = token === undefined || token === null ? undefined : String(token);
    for (const listener of listeners) listener(userToken);
  };

  async function send(events: AisleClickEvent[]): Promise<void> {
    const customerId = GUID.exec(userToken ?? '')?.[0] ?? sessionId;
    const body: AisleClickRequest = { customerId, sessionId, events: events.map((e) => ({ ...e, clickId: globalThis.crypto.randomUUID() })) };
    try {
      const res = await doFetch(endpoint, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${options.key}` }, body: JSON.stringify(body),
        keepalive: true,
      });
      if (res.status !== 202) onError(new Error(`aisle clicks answered ${res.status}: ${await res.text()}`));
    } catch (err) {
      onError(new Error(`aisle clicks failed: ${(err as Error)?.message ?? String(err)}`));
    }
  }

  const client = (method: string, ...args: unknown[]): Promise<void> | undefined => {
    switch (method) {
      case 'init': {
        const params = args[0] as { userToken?: unknown } | undefined;
        if (params?.userToken !== undefined) setUserToken(params.userToken);
        return undefined;
      }
      case 'setUserToken':
        setUserToken(args[0]);
        return undefined;
      case 'getUserToken':
        (args[1] as ((error: null, token: string | undefined) => void) | undefined)?.(null, userToken);
        return undefined;
      case 'onUserTokenChange': {
        const listener = args[0] as ((token: string | undefined) => void) | undefined;
        if (listener === undefined) listeners.length = 0;
        else {
          listeners.push(listener);
          if ((args[1] as { immediate?: boolean } | undefined)?.immediate) listener(userToken);
        }
        return undefined;
      }
      default: {
        const events = clickEventsOf(method, (args[0] ?? {}) as InsightsPayload, options.positionOf, new Date().toISOString());
        return events.length === 0 ? undefined : send(events);
      }
    }
  };
  return Object.assign(client, { version: '2.17.3' });
}
