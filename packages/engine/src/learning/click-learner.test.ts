/**
 * The click stage's rule (pure parts of the learner): a query below `minSessions` distinct sessions gets
 * no click stage at all, whatever its evidence; at the threshold it gets each candidate's signal; a query
 * without evidence gets none; the empty query never.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory-store.js';
import type { Product } from '../types.js';
import { ClickLearner } from './click-learner.js';
import { DEFAULT_CLICK_RANKING } from './click-ranking-settings.js';

const sessions = (n: number) => ({ sessionCount: () => n });
const candidates: Product[] = [{ refId: 'p1' }, { refId: 'p2' }];

describe('the click stage rule', () => {
  it('applies only from minSessions distinct sessions on, and only with evidence', async () => {
    const learner = new ClickLearner({ store: new MemoryStore(), attributionWindowMs: () => 86_400_000, onError: (err) => { throw err; } });
    learner.site('w').evidence.add({ query: 'shoe', refId: 'p2', shopper: 'a', type: 'click', position: 2, at: Date.now() });
    const settings = { ...DEFAULT_CLICK_RANKING, minSessions: 5 };
    for (const n of [0, 1, 4]) expect(learner.clickStage('w', 'shoe', settings, sessions(n))).toBeUndefined();
    const stage = learner.clickStage('w', 'shoe', settings, sessions(5))!;
    expect(stage.weight).toBe(1);
    const signals = stage.signals(candidates)!;
    expect(signals[0]).toBe(0);
    expect(signals[1]).toBeGreaterThan(0);
    expect(learner.clickStage('w', 'boot', settings, sessions(20))).toBeUndefined();
    expect(learner.clickStage('w', '', settings, sessions(20))).toBeUndefined();
    await learner.close();
  });
});
