/**
 * Result-list ids keep their format and signature: an id is signed with HMAC-SHA256 as node:crypto
 * computes it (ids issued before and after decision 0062 verify alike), and is recognised only for its
 * website and secret.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_PRESIGNED_AGE_MS, MAX_PRESIGNED_IDS, newQueryId, QueryIdIssuer, queryIdIssuedAt } from './query-ids.js';

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

  it('signed a few at a time verify alike, each answer\'s at most MAX_PRESIGNED_AGE_MS before it and never after', () => {
    const issuer = new QueryIdIssuer();
    const ids = new Set<string>();
    // Busy and quiet spells, two websites in turn, a secret replaced, a clock stepping back.
    let now = 1_764_000_000_000;
    const steps = [...Array.from({ length: 300 }, (_, i) => i % 7), 5_000, ...Array.from({ length: 100 }, () => 3), -50, 1, 1, 40_000, 2];
    let secretB = 'secret-b';
    steps.forEach((step, i) => {
      now += step;
      if (i === 350) secretB = 'secret-b2';
      for (const [websiteId, secret] of [['site-a', 'secret-a'], ['site-b', secretB]] as const) {
        const id = issuer.issue(now, websiteId, secret);
        ids.add(id);
        const issued = queryIdIssuedAt(id, websiteId, secret);
        expect(issued).toBeDefined();
        expect(issued!).toBeLessThanOrEqual(now);
        expect(now - issued!).toBeLessThanOrEqual(MAX_PRESIGNED_AGE_MS);
        expect(queryIdIssuedAt(id, websiteId === 'site-a' ? 'site-b' : 'site-a', secret)).toBeUndefined();
      }
    });
    expect(ids.size).toBe(2 * steps.length);
  });

  it('signed a few at a time grow a batch under traffic and sign each id at its answer\'s time when quiet', () => {
    const issuer = new QueryIdIssuer();
    const signedAt = (id: string) => queryIdIssuedAt(id, 'w', 's');
    // Busy: one answer a millisecond; the batch doubles up to MAX_PRESIGNED_IDS ids stamped at its first answer.
    const start = 1_764_000_000_000;
    const busy = Array.from({ length: 100 }, (_, i) => signedAt(issuer.issue(start + i, 'w', 's'))!);
    expect(new Set(busy).size).toBeLessThan(20);
    const perStamp = new Map<number, number>();
    for (const t of busy) perStamp.set(t, (perStamp.get(t) ?? 0) + 1);
    expect(Math.max(...perStamp.values())).toBe(MAX_PRESIGNED_IDS);
    expect(Math.max(...busy.map((t, i) => start + i - t))).toBeLessThan(MAX_PRESIGNED_IDS);
    // Quiet: one answer a second; after a few answers each id is stamped with its answer's time.
    const quiet = Array.from({ length: 10 }, (_, i) => start + 10_000 + 1_000 * i);
    const stamps = quiet.map((t) => signedAt(issuer.issue(t, 'w', 's'))!);
    expect(stamps.slice(-4)).toEqual(quiet.slice(-4));
    // …and signs one at a time; a busy spell grows the batch, a quiet one with ids left over shrinks it.
    expect(issuer.nextBatch('w')).toBe(1);
    for (let i = 0; i < 100; i++) issuer.issue(start + 50_000 + i, 'w', 's');
    expect(issuer.nextBatch('w')).toBe(MAX_PRESIGNED_IDS);
    for (const [i, expected] of [MAX_PRESIGNED_IDS / 2, MAX_PRESIGNED_IDS / 4, MAX_PRESIGNED_IDS / 8, MAX_PRESIGNED_IDS / 16, 1, 1].entries()) {
      issuer.issue(start + 60_000 + 1_000 * i, 'w', 's');
      expect(issuer.nextBatch('w')).toBe(expected);
    }
  });
});

