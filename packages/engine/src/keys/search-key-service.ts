/**
 * Browser keys: created and revoked through the admin API, stored hashed in the store, and resolved on
 * every search or click request that presents one; a key opens what its `actions` name (`search`,
 * `insights`: the contract's `KEY_ACTIONS`).
 *
 * A key is `sk_` followed by 43 base64url characters (32 random bytes), so guessing one is hopeless and
 * a plain SHA-256 digest is enough to store it (no salt or slow hash is needed for a high-entropy
 * secret). A presented key is hashed; the store is looked up by digest, and the digests are then
 * compared with `timingSafeEqual`.
 *
 * Replicas: each engine keeps a small cache of resolved digests — found and not found alike — for
 * {@link KEY_CACHE_TTL_MS}. A key created on one replica is found on another at its first use (a cache
 * miss reads the store); a revocation is seen by every replica once its cached entry expires, within
 * the TTL. The replica that revokes drops its own entry at once. While the store cannot be read, a
 * key resolved before is judged by its last reading (searches go on during an outage).
 * @module
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AisleError, fieldError } from '../errors.js';
import type { SearchKeyRequest } from '../contract/schemas.js';
import { checkAgainst } from '../contract/validate.js';
import { isStorableText, parseIsoDateTime } from '../contract/formats.js';
import { isExpiredKey } from '../store/rows.js';
import type { SearchKeyRecord, Store } from '../store/store.js';
import type { ScopeConditions } from '../types.js';

/** How long a resolved key (or a miss) is remembered; bounds how late a revocation reaches other replicas. */
export const KEY_CACHE_TTL_MS = 1000;
/** Most entries in the cache of resolved keys (a flood of made-up keys only resets it). */
const KEY_CACHE_SIZE = 10_000;
/** Most live (unexpired) keys one website may hold; expired ones are deleted when a create needs their room. */
export const MAX_KEYS_PER_WEBSITE = 1000;
export { KEY_ACTIONS } from '../contract/schemas.js';
/** Every search key starts with this. */
export const SEARCH_KEY_PREFIX = 'sk_';
/** Length of a key: the prefix plus 43 base64url characters. */
const KEY_LENGTH = SEARCH_KEY_PREFIX.length + 43;

/** A search key as listed (never the key itself). */
export interface SearchKeyInfo {
  id: string;
  websiteId: string;
  /** The key's first characters, to recognise it. */
  keyPrefix: string;
  actions: string[];
  /** The forced scope, when the key has one. */
  scope?: ScopeConditions;
  /** ISO 8601, when the key expires. */
  expiresAt?: string;
  createdAt: string;
  /** True once `expiresAt` has passed (an expired key opens nothing). */
  expired: boolean;
}

/** A presented key as the store knows it: live, expired (it opens nothing, and says so), or unknown. */
export type PresentedKeyRecord = { status: 'live' | 'expired'; record: SearchKeyRecord } | { status: 'unknown' };

/** A presented key, as the engine answers it (the key's info instead of its stored record). */
export type PresentedSearchKey = { status: 'live' | 'expired'; key: SearchKeyInfo } | { status: 'unknown' };

const UNKNOWN_KEY = { status: 'unknown' } as const;

/** A key just created: its info plus the key itself, shown this once. */
export interface CreatedSearchKey extends SearchKeyInfo {
  key: string;
}

/** The body of a key creation: `{actions: ["search" | "insights", …], expiresAt?, scope?}` (the contract's type). */
export type { SearchKeyRequest } from '../contract/schemas.js';

function bad(field: string, problem: string): never {
  throw fieldError('KEY_BAD_REQUEST', field, problem);
}

/** SHA-256 of a key, lower-case hex. */
export function hashSearchKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * Checks a key creation body against the contract's `SearchKeyRequest` schema, plus the rules a schema
 * does not state (`expiresAt` in the future, a `scope` only with the `search` action); pure apart from
 * the clock. A top-level `null` counts
 * as absent, as it always has for this body. Throws `KEY_BAD_REQUEST` naming the field.
 */
export function validateSearchKeyRequest(body: unknown, now: number): { actions: string[]; expiresAt: number | null; scope: ScopeConditions | null } {
  const present = typeof body === 'object' && body !== null && !Array.isArray(body)
    ? Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null))
    : body;
  const b = checkAgainst<SearchKeyRequest>('SearchKeyRequest', present, bad, { self: '(body)' });
  let expiresAt: number | null = null;
  if (b.expiresAt !== undefined) {
    // The schema's `event-time` format: a zoned ISO 8601 date-time, parsed as that format reads it.
    expiresAt = parseIsoDateTime(b.expiresAt)!;
    if (expiresAt <= now) bad('expiresAt', 'must be in the future');
  }
  // A scope restricts searches only (clicks name the products shown): on a key that opens none it would
  // be stored and shown as a limit that is not there.
  if (b.scope !== undefined && !b.actions.includes('search')) bad('scope', 'restricts searches: a key whose actions do not include "search" takes none');
  return { actions: [...new Set(b.actions)], expiresAt, scope: b.scope ?? null };
}

/** The listed form of a stored key. */
export function searchKeyInfo(record: SearchKeyRecord, now: number): SearchKeyInfo {
  const info: SearchKeyInfo = {
    id: record.id, websiteId: record.websiteId, keyPrefix: record.keyPrefix, actions: record.actions,
    createdAt: new Date(record.createdAt).toISOString(), expired: isExpiredKey(record.expiresAt, now),
  };
  if (record.scope !== null) info.scope = record.scope as ScopeConditions;
  if (record.expiresAt !== null) info.expiresAt = new Date(record.expiresAt).toISOString();
  return info;
}

/** Creates, lists, revokes and resolves search keys over a store (any of the three). */
export class SearchKeyService {
  /** Resolved digests: the record, or null for "no such key", with the time the entry stops counting. */
  private readonly cache = new Map<string, { record: SearchKeyRecord | null; until: number }>();

  constructor(private readonly store: Store, private readonly now: () => number = Date.now, private readonly ttlMs = KEY_CACHE_TTL_MS) {}

  /**
   * Creates a key for a website; the answer is the only place the key itself ever appears.
   * `checkScope` refuses (throws) a forced scope the website's catalog cannot apply.
   */
  async create(websiteId: string, body: unknown, checkScope?: (scope: ScopeConditions) => void): Promise<CreatedSearchKey> {
    const now = this.now();
    const request = validateSearchKeyRequest(body, now);
    if (request.scope !== null) checkScope?.(request.scope);
    const key = SEARCH_KEY_PREFIX + randomBytes(32).toString('base64url');
    const record: SearchKeyRecord = {
      websiteId, id: `key_${randomBytes(8).toString('hex')}`, keyHash: hashSearchKey(key), keyPrefix: key.slice(0, SEARCH_KEY_PREFIX.length + 6),
      actions: request.actions, scope: request.scope, expiresAt: request.expiresAt, createdAt: now,
    };
    // The store counts and inserts in one step: a count read here first let concurrent creates pass the limit.
    if (!(await this.store.insertSearchKey(record, MAX_KEYS_PER_WEBSITE))) {
      throw new AisleError('LIMIT_EXCEEDED', `website "${websiteId}" already has ${MAX_KEYS_PER_WEBSITE} live search keys; revoke some first`);
    }
    return { key, ...searchKeyInfo(record, now) };
  }

  /** The website's keys, oldest first. */
  async list(websiteId: string): Promise<SearchKeyInfo[]> {
    const now = this.now();
    return (await this.store.listSearchKeys(websiteId)).map((r) => searchKeyInfo(r, now));
  }

  /** Revokes a key given by its id or by the key itself; `KEY_NOT_FOUND` when the website has no such key. */
  async revoke(websiteId: string, keyOrId: string): Promise<void> {
    // Checked here, in the service: anything thrown below is read as the store's failure (503).
    if (typeof keyOrId !== 'string') throw new AisleError('KEY_BAD_REQUEST', 'search key: the key or its id must be a string');
    // Ids are aisle's own (`key_<hex>`): one a SQL store cannot hold names no key (PostgreSQL failed on it).
    if (!isStorableText(keyOrId)) throw new AisleError('KEY_NOT_FOUND', `website "${websiteId}" has no such search key`);
    let id = keyOrId;
    let hash: string | undefined;
    if (keyOrId.startsWith(SEARCH_KEY_PREFIX)) {
      hash = hashSearchKey(keyOrId);
      const record = await this.store.findSearchKey(hash);
      if (record === undefined || record.websiteId !== websiteId) throw new AisleError('KEY_NOT_FOUND', `website "${websiteId}" has no such search key`);
      id = record.id;
    }
    if (!(await this.store.deleteSearchKey(websiteId, id))) throw new AisleError('KEY_NOT_FOUND', `website "${websiteId}" has no search key "${id}"`);
    if (hash !== undefined) this.cache.delete(hash);
    else for (const [h, entry] of this.cache) if (entry.record?.id === id) this.cache.delete(h);
  }

  /** The live (known, unexpired) key a caller presents, or undefined. */
  async resolve(key: string): Promise<SearchKeyRecord | undefined> {
    const presented = await this.present(key);
    return presented.status === 'live' ? presented.record : undefined;
  }

  /**
   * What a presented key is: `live`, `expired` (known, its `expiresAt` passed) or `unknown` (never
   * created, revoked, or not of the key's form). Telling `expired` apart is safe: only a holder of the
   * key (256 random bits) can present it, and what they learn is their own key's state.
   */
  async present(key: string): Promise<PresentedKeyRecord> {
    // Not a string (a library caller's undefined): no key, as a malformed one — not a store failure.
    if (typeof key !== 'string' || key.length !== KEY_LENGTH || !key.startsWith(SEARCH_KEY_PREFIX)) return UNKNOWN_KEY;
    const hash = hashSearchKey(key);
    const now = this.now();
    let entry = this.cache.get(hash);
    if (entry === undefined || entry.until <= now) {
      let record: SearchKeyRecord | null;
      try {
        record = (await this.store.findSearchKey(hash)) ?? null;
      } catch (err) {
        // The store is out of reach (a PostgreSQL outage): a key this process resolved before keeps opening
        // searches, which are served from memory, as a website token's do; it answered 503 once its entry
        // was a second old. A key never resolved here cannot be checked: the store's failure is the answer.
        if (entry === undefined) throw err;
        return this.judge(entry.record, hash, now);
      }
      if (this.cache.size >= KEY_CACHE_SIZE) this.cache.clear();
      entry = { record, until: now + this.ttlMs };
      this.cache.set(hash, entry);
    }
    return this.judge(entry.record, hash, now);
  }

  /** What a resolved record makes of the presented key's digest at `now`. */
  private judge(record: SearchKeyRecord | null, hash: string, now: number): PresentedKeyRecord {
    if (record === null) return UNKNOWN_KEY;
    if (!timingSafeEqual(Buffer.from(record.keyHash, 'hex'), Buffer.from(hash, 'hex'))) return UNKNOWN_KEY;
    if (isExpiredKey(record.expiresAt, now)) return { status: 'expired', record };
    return { status: 'live', record };
  }
}
