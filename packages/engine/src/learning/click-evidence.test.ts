/**
 * The click evidence (pure): inverse propensity weights, one shopper once per (query, product), the
 * prior toward the text ranking, decay, conversions in either order, the memory bound, and the
 * serialised form.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClickEvidence, PRIOR_EVIDENCE, propensity, type EvidenceEvent } from './click-evidence.js';
import { BehaviourPopularity, POPULARITY_WINDOW_DAYS } from './behaviour-popularity.js';

const NOW = Date.UTC(2026, 10, 20, 12);
const DAY = 86_400_000;

function click(shopper: string, refId: string, position: number, extra: Partial<EvidenceEvent> = {}): EvidenceEvent {
  return { query: 'shoe', refId, shopper, type: 'click', position, at: NOW - 60_000, ...extra };
}

describe('click evidence', () => {
  it('weights a click by the inverse of its position\'s propensity, clipped at position 10', () => {
    expect(propensity(1)).toBe(1);
    expect(propensity(4)).toBe(0.25);
    expect(propensity(10)).toBe(0.1);
    expect(propensity(250)).toBe(0.1);
    const e = new ClickEvidence();
    e.add(click('a', 'top', 1));
    e.add(click('b', 'deep', 4));
    const s = e.signals('shoe', NOW, 30);
    expect(s.get('deep')! / s.get('top')!).toBeCloseTo(4, 5);
    expect(s.get('top')).toBeCloseTo(1 / (5 + PRIOR_EVIDENCE), 5);
  });

  it('counts one shopper once per (query, product), its strongest event, however often it clicks', () => {
    const once = new ClickEvidence();
    once.add(click('spammer', 'p1', 3));
    const spam = new ClickEvidence();
    for (let i = 0; i < 5000; i++) spam.add(click('spammer', 'p1', 3, { at: NOW - 60_000 - i }));
    expect(spam.size).toBe(1);
    expect(spam.signals('shoe', NOW, 30).get('p1')).toBeCloseTo(once.signals('shoe', NOW, 30).get('p1')!, 3);
    // An add-to-cart is stronger than a click; a later weaker click does not lower it.
    spam.add(click('spammer', 'p1', 3, { type: 'addToCart' }));
    const cart = spam.signals('shoe', NOW, 30).get('p1')!;
    spam.add(click('spammer', 'p1', 1));
    expect(spam.signals('shoe', NOW + 120_000, 30).get('p1')).toBeCloseTo(cart, 3);
    expect(cart).toBeGreaterThan(once.signals('shoe', NOW, 30).get('p1')!);
  });

  it('turns clicks into conversions, whether the purchase is seen before or after the click', () => {
    const after = new ClickEvidence();
    after.add(click('a', 'p1', 2));
    const clicked = after.signals('shoe', NOW, 30).get('p1')!;
    after.addPurchase('A', 'p1', NOW);
    expect(after.signals('shoe', NOW + 1, 30).get('p1')!).toBeGreaterThan(clicked);
    const before = new ClickEvidence();
    before.addPurchase('a', 'p1', NOW);
    before.add(click('a', 'p1', 2));
    expect(before.signals('shoe', NOW, 30).get('p1')).toBeCloseTo(after.signals('shoe', NOW + 1, 30).get('p1')!, 3);
    // Outside the attribution window: still a click.
    const late = new ClickEvidence({ attributionWindowMs: () => DAY });
    late.add(click('a', 'p1', 2));
    late.addPurchase('a', 'p1', NOW + 3 * DAY);
    expect(late.signals('shoe', NOW, 30).get('p1')).toBeCloseTo(clicked, 5);
  });

  it('decays evidence by half every half-life', () => {
    const e = new ClickEvidence();
    e.add(click('a', 'old', 1, { at: NOW - 30 * DAY }));
    e.add(click('b', 'new', 1, { at: NOW }));
    const s = e.signals('shoe', NOW, 30);
    expect(s.get('old')! / s.get('new')!).toBeCloseTo(0.5, 2);
  });

  it('stays within its bound of entries, dropping the queries changed least recently', () => {
    const e = new ClickEvidence({ maxEntries: 100 });
    for (let i = 0; i < 1000; i++) e.add(click(`s${i}`, `p${i % 7}`, 1, { query: `q${i % 50}` }));
    expect(e.size).toBeLessThanOrEqual(100);
    expect(e.signals('q49', NOW, 30).size).toBeGreaterThan(0);
    expect(e.signals('q0', NOW, 30).size).toBe(0);
  });

  it('serialises and restores to the same signals; refuses malformed state', () => {
    fc.assert(fc.property(fc.array(fc.record({
      shopper: fc.constantFrom('a', 'b', 'c', 'd'), refId: fc.constantFrom('p1', 'p2', 'p3'), query: fc.constantFrom('shoe', 'red shoe'),
      position: fc.integer({ min: 1, max: 40 }), type: fc.constantFrom('click' as const, 'addToCart' as const), age: fc.integer({ min: 0, max: 90 * DAY }),
    }), { maxLength: 60 }), (events) => {
      const e = new ClickEvidence();
      for (const x of events) e.add({ ...x, at: NOW - x.age });
      const copy = new ClickEvidence();
      copy.restore(e.serialize());
      expect(copy.size).toBe(e.size);
      for (const q of ['shoe', 'red shoe']) expect([...copy.signals(q, NOW, 30)]).toEqual([...e.signals(q, NOW, 30)]);
    }));
    const bad = new ClickEvidence().serialize();
    expect(() => new ClickEvidence().restore({ ...bad, queries: ['x'] })).toThrow(/lengths disagree/);
  });
});

describe('_popularity', () => {
  it('sums each shopper\'s strongest event per product and day over the trailing window', () => {
    const p = new BehaviourPopularity();
    for (let i = 0; i < 1000; i++) p.add('spammer', 'p1', 'click', NOW);
    expect(p.valueOf('p1', NOW)).toBe(1);
    p.add('spammer', 'p1', 'purchase', NOW);
    expect(p.valueOf('p1', NOW)).toBe(4);
    p.add('other', 'p1', 'addToCart', NOW - DAY);
    expect(p.valueOf('p1', NOW)).toBe(6);
    // Past the window, nothing counts.
    expect(p.valueOf('p1', NOW + POPULARITY_WINDOW_DAYS * DAY)).toBe(0);
    const copy = new BehaviourPopularity();
    copy.restore(p.serialize());
    expect(copy.valueOf('p1', NOW)).toBe(6);
  });
});
