/**
 * Result-list ids keep their format and signature: an id is signed with HMAC-SHA256 as node:crypto
 * computes it (ids issued before and after decision 0062 verify alike), and is recognised only for its
 * website and secret.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newQueryId, queryIdIssuedAt } from './query-ids.js';

/** The signature as node:crypto makes it (the construction ids have always had). */
function cryptoSignature(secret: string, websiteId: string, body: string): string {
  return createHmac('sha256', secret).update(`${websiteId}\u0000${body}`).digest('base64url').slice(0, 11);
}

describe('query ids', () => {
  it('are signed as createHmac signs them, for any website id and secret', () => {
    const websites = ['bench', 'site-a', 'ünïcødé-shop', 'a'.repeat(70), '\ud800lone'];
    const secrets = ['s', 'bench-secret', 'ключ', 'x'.repeat(100)];
    for (let i = 0; i < 600; i++) {
      const websiteId = websites[i % websites.length]!;
      const secret = secrets[i % secrets.length]!;
      const now = 1_764_000_000_000 + i * 7919;
      const id = newQueryId(now, websiteId, secret);
      const [time, random, signature] = id.split('.');
      expect(time).toBe(now.toString(36));
      expect(random).toMatch(/^[A-Za-z0-9_-]{16}$/);
      expect(signature).toBe(cryptoSignature(secret, websiteId, `${time}.${random}`));
      expect(queryIdIssuedAt(id, websiteId, secret)).toBe(now);
      expect(queryIdIssuedAt(id, `${websiteId}x`, secret)).toBeUndefined();
      expect(queryIdIssuedAt(id, websiteId, `${secret}x`)).toBeUndefined();
    }
  });

  it('verify an id signed by node:crypto, and no other', () => {
    const body = `${(1_764_000_000_000).toString(36)}.${'A'.repeat(16)}`;
    const id = `${body}.${cryptoSignature('secret-a', 'site-a', body)}`;
    expect(queryIdIssuedAt(id, 'site-a', 'secret-a')).toBe(1_764_000_000_000);
    expect(queryIdIssuedAt(`${id.slice(0, -1)}${id.endsWith('A') ? 'B' : 'A'}`, 'site-a', 'secret-a')).toBeUndefined();
    expect(queryIdIssuedAt('not-an-id', 'site-a', 'secret-a')).toBeUndefined();
  });

  it('are unique across the random pool refills', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 1000; i++) ids.add(newQueryId(1_764_000_000_000, 'bench', 'bench-secret'));
    expect(ids.size).toBe(1000);
  });
});
