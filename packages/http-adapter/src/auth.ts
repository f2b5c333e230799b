/**
 * Bearer-token authentication. A website token opens exactly that website; an admin token opens the
 * admin API. Tokens are kept only as SHA-256 digests; a presented token is hashed and the digests are
 * compared with `timingSafeEqual` (the map lookup is keyed by the digest, which says nothing usable
 * about the token). Tokens are never logged.
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AisleError, SEARCH_KEY_PREFIX, type Engine, type KEY_ACTIONS, type SearchKeyInfo, type WebsiteConfig } from '@aisle/engine';

/** What a browser key may open (the engine's key actions). */
type KeyAction = (typeof KEY_ACTIONS)[number];
import { HttpError } from './errors.js';
import { RecentMemo } from '@aisle/engine/internal';

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Presented tokens whose digests are remembered (bounded: a flood of made-up tokens only resets it). */
const DIGEST_CACHE_SIZE = 1024;

/** The bearer token of a request, or undefined when the header is absent or not of the Bearer form. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (!header || header.length < 8 || header.length > 4096) return undefined;
  if (header.slice(0, 7).toLowerCase() !== 'bearer ') return undefined;
  const token = header.slice(7).trim();
  return token.length > 0 ? token : undefined;
}

/** Resolves tokens to websites (from the engine's website configs) and recognises admin tokens. */
export class TokenIndex {
  private readonly byDigest = new Map<string, { digest: Buffer; website: WebsiteConfig }>();
  private readonly adminDigests: Buffer[];
  /** The website configs the index was built from (compared by identity to notice changes). */
  private indexed: readonly WebsiteConfig[] = [];
  /** SHA-256 of recently presented tokens, so a client's token is hashed once, not on every request. */
  private readonly digests = new RecentMemo<string, Buffer>(DIGEST_CACHE_SIZE);

  constructor(private readonly engine: Pick<Engine, 'websites' | 'website'>, adminTokens: readonly string[] = []) {
    this.adminDigests = adminTokens.map(digest);
    this.rebuild();
    // As the config check does for a config's own adminTokens: the listener's may come from elsewhere
    // (createListener(engine, { adminTokens })), and a website's token among them opened the admin API.
    for (const [i, admin] of this.adminDigests.entries()) {
      const website = this.byDigest.get(admin.toString('base64'))?.website.websiteId;
      if (website !== undefined) {
        throw new AisleError('CONFIG_INVALID', `adminTokens[${i}] is also a token of website "${website}" (a website token opens exactly one website, never the admin API)`);
      }
    }
  }

  /** Re-reads the websites' tokens (done automatically when a website is added or its config replaced). */
  rebuild(): void {
    this.byDigest.clear();
    this.indexed = this.engine.websites();
    for (const website of this.indexed) {
      for (const token of website.tokens) {
        const d = digest(token);
        this.byDigest.set(d.toString('base64'), { digest: d, website });
      }
    }
  }

  private changed(): boolean {
    const now = this.engine.websites();
    return now.length !== this.indexed.length || now.some((w, i) => w !== this.indexed[i]);
  }

  /** The digest of a presented token (cached; the comparison that follows stays constant-time on digests). */
  private digestOf(token: string): Buffer {
    return this.digests.get(token) ?? this.digests.remember(token, digest(token));
  }

  /** The website a token opens, or undefined. */
  websiteOf(token: string): string | undefined {
    const presented = this.digestOf(token);
    const key = presented.toString('base64');
    let entry = this.byDigest.get(key);
    // A hit whose website config was replaced (tokens rotated), or a miss after websites changed: re-index once.
    if (entry ? this.engine.website(entry.website.websiteId) !== entry.website : this.changed()) {
      this.rebuild();
      entry = this.byDigest.get(key);
    }
    return entry && timingSafeEqual(entry.digest, presented) ? entry.website.websiteId : undefined;
  }

  /** True when `token` is an admin token (every admin digest is compared, in constant time each). */
  isAdmin(token: string): boolean {
    const presented = this.digestOf(token);
    let match = false;
    for (const d of this.adminDigests) match = timingSafeEqual(d, presented) || match;
    return match;
  }

  /**
   * The website opened by the request's token; 401 when the token is missing or unknown, and telling the
   * holder of a live (or expired) search key that this operation takes the website's token instead.
   */
  async requireWebsite(req: IncomingMessage, engine: Pick<Engine, 'presentSearchKey'>): Promise<string> {
    const token = bearerToken(req);
    if (!token) throw new HttpError('TOKEN_MISSING', { expected: 'token' }, { key: 'Authorization' });
    const websiteId = this.websiteOf(token);
    if (websiteId !== undefined) return websiteId;
    // Only a token of a key's form is looked up (the failure path only): a made-up one stays "invalid".
    if (token.startsWith(SEARCH_KEY_PREFIX) && (await engine.presentSearchKey(token)).status !== 'unknown') {
      throw new HttpError('KEY_NOT_ACCEPTED', {}, { key: 'Authorization' });
    }
    throw new HttpError('TOKEN_INVALID', {}, { key: 'Authorization' });
  }

  /**
   * The caller of a browser-called operation: a website token, or a search key whose actions include
   * `action` (the key names its website and may force a search scope). 401 when the token is missing,
   * unknown, revoked, expired (`KEY_EXPIRED`, saying when) or does not open `action`.
   */
  async requireKeyCaller(req: IncomingMessage, engine: Pick<Engine, 'presentSearchKey'>, action: KeyAction): Promise<{ websiteId: string; key?: SearchKeyInfo }> {
    const token = bearerToken(req);
    if (!token) throw new HttpError('TOKEN_MISSING', { expected: 'token or search key' }, { key: 'Authorization' });
    const websiteId = this.websiteOf(token);
    if (websiteId !== undefined) return { websiteId };
    const presented = await engine.presentSearchKey(token);
    if (presented.status === 'unknown') throw new HttpError('TOKEN_INVALID', {}, { key: 'Authorization' });
    const key = presented.key;
    // As below: only the key's holder can present it, so naming its expiry tells them nothing about any
    // other key or website; "invalid" would send them looking for a typo instead of a new key.
    if (presented.status === 'expired') throw new HttpError('KEY_EXPIRED', { expiresAt: key.expiresAt ?? '' }, { key: 'Authorization' });
    // The caller holds the key (256 random bits): saying what it opens tells them nothing they lack.
    if (!key.actions.includes(action)) throw new HttpError('KEY_ACTION_NOT_ALLOWED', { action, actions: key.actions.join(', ') }, { key: 'Authorization' });
    return { websiteId: key.websiteId, key };
  }

  /** 401 unless the request carries an admin token. */
  requireAdmin(req: IncomingMessage): void {
    const token = bearerToken(req);
    if (!token) throw new HttpError('TOKEN_MISSING', { expected: 'admin token' }, { key: 'Authorization' });
    if (!this.isAdmin(token)) throw new HttpError('ADMIN_TOKEN_INVALID', {}, { key: 'Authorization' });
  }
}
