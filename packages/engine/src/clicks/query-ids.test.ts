/**
 * Result-list ids keep their format and signature: an id is signed with HMAC-SHA256 as node:crypto
 * computes it (ids issued before and after decision 0062 verify alike), and is recognised only for its
 * website and secret.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_IDS_PER_SIGNATURE, MAX_SIGNATURE_AGE_MS, newQueryId, QueryIdIssuer, queryIdIssuedAt, queryIdTime } from './query-ids.js';

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

  it('carry their time, read without the secret as the signature check reads it', () => {
    const issuer = new QueryIdIssuer();
    for (const at of [0, 1, 1_700_000_000_123, 4_102_444_800_000]) {
      for (const id of [newQueryId(at, 'w1', 'secret'), issuer.issue(at, 'w1', 'secret')]) expect(queryIdTime(id)).toBe(queryIdIssuedAt(id, 'w1', 'secret'));
    }
    for (const bad of ['', 'nope', '.abc', 'A1.x', '12345678901234.x']) expect(queryIdTime(bad)).toBeUndefined();
  });

  it('are unique across the random pool refills', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 1000; i++) ids.add(newQueryId(1_764_000_000_000, 'bench', 'bench-secret'));
    expect(ids.size).toBe(1000);
  });

  it('issued under one signature verify alike, each answer\'s at most MAX_SIGNATURE_AGE_MS before it and never after', () => {
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
        expect(now - issued!).toBeLessThanOrEqual(MAX_SIGNATURE_AGE_MS);
        expect(queryIdIssuedAt(id, websiteId === 'site-a' ? 'site-b' : 'site-a', secret)).toBeUndefined();
        if (websiteId === 'site-b' && i > 350) expect(queryIdIssuedAt(id, websiteId, 'secret-b')).toBeUndefined();
      }
    });
    expect(ids.size).toBe(2 * steps.length);
  });

  it('share a signature under traffic, a counter apart, and sign each answer\'s id at its time when quiet', () => {
    const issuer = new QueryIdIssuer();
    const start = 1_764_000_000_000;
    // Busy: 5,000 answers in the same millisecond: a new signature after MAX_IDS_PER_SIGNATURE of them.
    const busy = Array.from({ length: 5_000 }, () => issuer.issue(start, 'w', 's'));
    expect(new Set(busy).size).toBe(5_000);
    const signatures = new Map<string, string[]>();
    for (const id of busy) {
      expect(queryIdIssuedAt(id, 'w', 's')).toBe(start);
      const parts = id.split('.');
      expect(parts).toHaveLength(4);
      const signed = parts.slice(0, 3).join('.');
      signatures.set(signed, [...(signatures.get(signed) ?? []), parts[3]!]);
    }
    expect([...signatures.values()].map((counters) => counters.length)).toEqual([MAX_IDS_PER_SIGNATURE, 5_000 - MAX_IDS_PER_SIGNATURE]);
    expect(signatures.values().next().value!.slice(0, 3)).toEqual(['0', '1', '2']);
    expect(signatures.values().next().value!.at(-1)).toBe((MAX_IDS_PER_SIGNATURE - 1).toString(36));
    // One signature serves answers for MAX_SIGNATURE_AGE_MS, then the next answer signs anew.
    const later = issuer.issue(start + MAX_SIGNATURE_AGE_MS + 1, 'w', 's');
    expect(queryIdIssuedAt(later, 'w', 's')).toBe(start + MAX_SIGNATURE_AGE_MS + 1);
    // Quiet: one answer a second, each id stamped with its answer's time.
    const quiet = Array.from({ length: 5 }, (_, i) => start + 10_000 + 1_000 * i);
    expect(quiet.map((t) => queryIdIssuedAt(issuer.issue(t, 'w', 's'), 'w', 's'))).toEqual(quiet);
  });

  it('are checked by their signed part: a changed counter passes (it names no list), a changed signed part does not', () => {
    const id = new QueryIdIssuer().issue(1_764_000_000_000, 'w', 's');
    const [time, random, signature] = id.split('.');
    expect(queryIdIssuedAt(`${time}.${random}.${signature}.zz`, 'w', 's')).toBe(1_764_000_000_000);
    expect(queryIdIssuedAt(`${time}.${random}.${signature}.zzzz`, 'w', 's')).toBeUndefined();
    expect(queryIdIssuedAt(`${time}.${random}.${signature}.`, 'w', 's')).toBeUndefined();
    expect(queryIdIssuedAt(`${time}.${random.slice(1)}A.${signature}.0`, 'w', 's')).toBeUndefined();
    expect(queryIdIssuedAt(id, 'w', 's2')).toBeUndefined();
  });
});
