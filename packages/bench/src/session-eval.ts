/**
 * Session-based next-item evaluation of the recommendation methods (docs/recommendations.md,
 * "Session evaluation"), with the references implemented here.
 *
 *   node --import tsx packages/bench/src/session-eval.ts [--json] [--sessions 40000] [--items 5000] [--seed 11]
 *
 * Protocol (Ludewig & Jannach's session-based evaluations): sessions in time order; the last 10 % (by
 * start time) are the test sessions. Consecutive repeats of one item are collapsed. For each test session
 * and each position i ≥ 1, the views up to i are known and the next item is the target: HitRate@20 (the
 * target is in the top 20) and MRR@20 (1/rank, 0 beyond 20), averaged over all predictions. The target
 * is the next item the shopper has NOT viewed yet in the session (a repeat view is what Recently Viewed
 * is for; repeats are fed to the models but not predicted), and every list — references included — has
 * the session's items set aside, so no method spends slots on them. The protocol
 * is online: every view is fed to the library models as it happens (`applyView`, the engine's real-time
 * path) and each finished test session is added to the references' data too, so both learn from the
 * same past.
 *
 * Methods (through `RecommendationModels`): Personalized and ViewedTogetherRecentlyViewed (customerId),
 * ProductDetail (productRef = current item, customerId), and ViewedTogether (productRef = current item)
 * with the session's items set aside (the method knows no customer; "its ranking, history aside").
 * References: Popular (view counts), last-item co-visitation (sessions in which both were viewed),
 * SKNN and V-SKNN (100 neighbours among the 500 most recent sessions sharing an item, cosine; V-SKNN
 * weighs the session's items by position, linearly, the latest most).
 *
 * Data: generated sessions with realistic structure (a fixed seed): Zipf item popularity; items in
 * topics of Zipf sizes; sessions that stay in a topic (customers have a favourite one), follow item
 * relations (each item has a few related items: accessories, alternatives), drift to another topic now
 * and then, and view an earlier item again (repeat views). The OTTO sample of ../shared/datasets (20
 * sessions, CC BY 4.0) is too small to rank anything; `--otto` runs the same protocol on it as a check.
 * @module
 */
import { readFileSync } from 'node:fs';
import type { CatalogView, Product } from '@aisle/engine';
import { objectProductList, RecommendationModels } from '@aisle/engine/internal';
import { DATASETS_DIR } from './datasets.js';
import { seededRandom, zipf } from './seeded-random.js';

const K = 20;

/** One browsing session. */
export interface EvalSession {
  customerId: string;
  sessionId: string;
  start: number;
  items: string[];
}



/** Generated sessions (see the module notes). */
export function generateSessions(options: { sessions: number; items: number; seed: number }): EvalSession[] {
  const rand = seededRandom(options.seed);
  const n = options.items;
  const topics = Math.max(4, Math.round(n / 50));
  // Item popularity rank r (0 = most popular) is the item id; topics are assigned with Zipf sizes.
  const topicOf = new Int32Array(n);
  const drawTopicForItem = zipf(topics, 0.8, rand);
  const members: number[][] = Array.from({ length: topics }, () => []);
  for (let i = 0; i < n; i++) {
    const t = drawTopicForItem();
    topicOf[i] = t;
    members[t]!.push(i);
  }
  const topicDraw = members.map((m) => zipf(Math.max(1, m.length), 1.0, rand));
  const globalDraw = zipf(n, 1.0, rand);
  const pickTopic = zipf(topics, 0.7, rand);
  const inTopic = (t: number): number => {
    const m = members[t]!;
    return m.length === 0 ? globalDraw() : m[topicDraw[t]!()]!;
  };
  // Each item has 4 related items, mostly in its topic.
  const related: number[][] = [];
  for (let i = 0; i < n; i++) {
    const list: number[] = [];
    for (let r = 0; r < 4; r++) list.push(rand() < 0.8 ? inTopic(topicOf[i]!) : globalDraw());
    related.push(list.filter((x) => x !== i));
  }
  const customers = Math.max(10, Math.round(options.sessions / 4));
  const customerDraw = zipf(customers, 0.6, rand);
  const favourite = new Int32Array(customers).map(() => pickTopic());
  const out: EvalSession[] = [];
  const span = 60 * 86_400_000;
  const t0 = Date.UTC(2026, 0, 1);
  for (let s = 0; s < options.sessions; s++) {
    const c = customerDraw();
    let topic = rand() < 0.6 ? favourite[c]! : pickTopic();
    let length = 2;
    while (length < 30 && rand() < 0.78) length++;
    const items: number[] = [inTopic(topic)];
    while (items.length < length) {
      const current = items[items.length - 1]!;
      const x = rand();
      let next: number;
      if (x < 0.12 && items.length > 1) next = items[Math.floor(rand() * (items.length - 1))]!; // repeat view
      else if (x < 0.45 && related[current]!.length > 0) next = related[current]![Math.floor(rand() * related[current]!.length)]!;
      else if (x < 0.52) next = globalDraw();
      else {
        if (x > 0.94) topic = pickTopic(); // drift
        next = inTopic(topic);
      }
      items.push(next);
    }
    out.push({ customerId: `c${c}`, sessionId: `s${s}`, start: t0 + Math.floor((s / options.sessions) * span), items: items.map((i) => `i${i}`) });
  }
  return out;
}

/** Sessions of the OTTO sample (aid = item, session = session and customer). */
function ottoSessions(): EvalSession[] {
  const bySession = new Map<string, EvalSession>();
  for (const line of readFileSync(`${DATASETS_DIR}/otto-sample-events.ndjson`, 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as { sessionId: string; itemId: string; eventType: string; timestampMs: number };
    if (e.eventType !== 'view') continue;
    const session = String(e.sessionId);
    const item = String(e.itemId);
    const ts = Number(e.timestampMs);
    let s = bySession.get(session);
    if (!s) bySession.set(session, (s = { customerId: `c${session}`, sessionId: session, start: ts, items: [] }));
    s.items.push(item);
  }
  return [...bySession.values()].sort((a, b) => a.start - b.start);
}

/** Collapses consecutive repeats (the protocol's preprocessing). */
function collapse(items: readonly string[]): string[] {
  return items.filter((x, i) => i === 0 || items[i - 1] !== x);
}

interface Score { n: number; hits: number; rr: number }
const score = (): Score => ({ n: 0, hits: 0, rr: 0 });
function judge(s: Score, list: readonly string[], target: string): void {
  s.n++;
  const at = list.slice(0, K).indexOf(target);
  if (at >= 0) {
    s.hits++;
    s.rr += 1 / (at + 1);
  }
}
const round = (x: number): number => Math.round(x * 10_000) / 10_000;
const result = (s: Score) => ({ hitRateAt20: round(s.hits / s.n), mrrAt20: round(s.rr / s.n), predictions: s.n });

/** The references' data: view counts, co-visitation counts and the session pool of SKNN. */
class References {
  private readonly views = new Map<string, number>();
  private readonly co = new Map<string, Map<string, number>>();
  private readonly sessions: string[][] = [];
  /** item → indexes of the sessions containing it, oldest first. */
  private readonly sessionsOf = new Map<string, number[]>();
  private popular: string[] | undefined;

  add(items: readonly string[]): void {
    const distinct = [...new Set(items)];
    for (const a of items) this.views.set(a, (this.views.get(a) ?? 0) + 1);
    for (const a of distinct) {
      let row = this.co.get(a);
      if (!row) this.co.set(a, (row = new Map()));
      for (const b of distinct) if (b !== a) row.set(b, (row.get(b) ?? 0) + 1);
    }
    const index = this.sessions.push(distinct) - 1;
    for (const a of distinct) {
      let list = this.sessionsOf.get(a);
      if (!list) this.sessionsOf.set(a, (list = []));
      list.push(index);
    }
    this.popular = undefined;
  }

  popularList(): string[] {
    this.popular ??= [...this.views.entries()].sort((x, y) => y[1] - x[1]).slice(0, 2 * K + 30).map(([r]) => r);
    return this.popular;
  }

  coVisitation(last: string): string[] {
    return top(this.co.get(last) ?? new Map());
  }

  /** SKNN (weights all 1) or V-SKNN (linear position weights, the latest item 1). */
  sknn(session: readonly string[], decay: boolean): string[] {
    const weights = new Map<string, number>();
    session.forEach((item, p) => weights.set(item, decay ? (p + 1) / session.length : 1));
    // The 500 most recent sessions sharing an item with the current one.
    const candidates = new Set<number>();
    const heads = [...weights.keys()].map((i) => this.sessionsOf.get(i) ?? []);
    const pos = heads.map((l) => l.length - 1);
    while (candidates.size < 500) {
      let best = -1;
      let bestAt = -1;
      for (let h = 0; h < heads.length; h++) if (pos[h]! >= 0 && heads[h]![pos[h]!]! > best) { best = heads[h]![pos[h]!]!; bestAt = h; }
      if (bestAt < 0) break;
      pos[bestAt]!--;
      candidates.add(best);
    }
    const norm = Math.sqrt(weights.size);
    const sims: [number, number][] = [];
    for (const c of candidates) {
      const other = this.sessions[c]!;
      let dot = 0;
      for (const item of other) dot += weights.get(item) ?? 0;
      if (dot > 0) sims.push([c, dot / (norm * Math.sqrt(other.length))]);
    }
    sims.sort((x, y) => y[1] - x[1] || y[0] - x[0]);
    const scores = new Map<string, number>();
    for (const [c, sim] of sims.slice(0, 100)) for (const item of this.sessions[c]!) scores.set(item, (scores.get(item) ?? 0) + sim);
    return top(scores);
  }
}

function top(scores: ReadonlyMap<string, number>): string[] {
  // More than K: the caller sets the session's items aside first.
  return [...scores.entries()].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, 2 * K + 30).map(([r]) => r);
}

function argValue(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] !== undefined ? Number(process.argv[at + 1]) : fallback;
}

/** Runs the protocol over `sessions` (time-ordered); returns the figures. */
export function evaluateSessions(sessions: readonly EvalSession[]) {
  const refs = new Set<string>();
  for (const s of sessions) for (const i of s.items) refs.add(i);
  const catalog: CatalogView = {
    version: 1, liveCount: refs.size, has: (r) => refs.has(r), getProduct: (r) => (refs.has(r) ? ({ refId: r } as Product) : undefined),
    isInStock: () => true, liveProducts: () => objectProductList([...refs].map((refId) => ({ refId }))),
  };
  const website = { websiteId: 'session-eval', client: 'eval', tokens: [], hmacSecret: 'eval' };
  const tuning = process.env.AISLE_TUNING ? (JSON.parse(process.env.AISLE_TUNING) as object) : {};
  const models = new RecommendationModels({ website, catalog, tuning: { popularRefreshMs: 0, ...tuning } });
  const references = new References();
  const split = Math.floor(sessions.length * 0.9);
  const feed = (s: EvalSession, upTo: number): void => {
    for (let k = 0; k < upTo; k++) models.applyView({ websiteId: website.websiteId, customerId: s.customerId, sessionId: s.sessionId, refId: s.items[k]!, eventTime: s.start + k * 30_000 });
  };
  for (const s of sessions.slice(0, split)) {
    feed(s, s.items.length);
    references.add(s.items);
  }
  const scores = {
    Personalized: score(), ViewedTogetherRecentlyViewed: score(), ProductDetail: score(), ViewedTogetherHistoryAside: score(),
    referencePopular: score(), referenceCoVisitation: score(), referenceSKNN: score(), referenceVSKNN: score(),
  };
  let repeatsListed = 0;
  let repeatTargets = 0;
  let viewedTogetherLists = 0;
  for (const raw of sessions.slice(split)) {
    const s = { ...raw, items: collapse(raw.items) };
    if (s.items.length < 2) continue;
    for (let i = 1; i < s.items.length; i++) {
      const known = s.items.slice(0, i);
      models.applyView({ websiteId: website.websiteId, customerId: s.customerId, sessionId: s.sessionId, refId: known[i - 1]!, eventTime: s.start + (i - 1) * 30_000 });
      const target = s.items[i]!;
      const current = known[i - 1]!;
      const seen = new Set(known);
      // The question is the next item the shopper has not seen yet (a repeat view is what Recently
      // Viewed is for): repeats are fed to the models but not predicted.
      if (seen.has(target)) {
        repeatTargets++;
        continue;
      }
      const aside = (list: readonly string[]): string[] => list.filter((r) => !seen.has(r));
      judge(scores.Personalized, models.recommend('Personalized', { customerId: s.customerId, count: K }).payload, target);
      judge(scores.ViewedTogetherRecentlyViewed, models.recommend('ViewedTogetherRecentlyViewed', { customerId: s.customerId, count: K }).payload, target);
      judge(scores.ProductDetail, models.recommend('ProductDetail', { productRef: current, customerId: s.customerId, count: K }).payload, target);
      const vt = models.recommend('ViewedTogether', { productRef: current, count: 100 }).payload;
      viewedTogetherLists++;
      repeatsListed += vt.slice(0, K).filter((r) => seen.has(r)).length;
      judge(scores.ViewedTogetherHistoryAside, aside(vt), target);
      judge(scores.referencePopular, aside(references.popularList()), target);
      judge(scores.referenceCoVisitation, aside(references.coVisitation(current)), target);
      judge(scores.referenceSKNN, aside(references.sknn(known, false)), target);
      judge(scores.referenceVSKNN, aside(references.sknn(known, true)), target);
    }
    models.applyView({ websiteId: website.websiteId, customerId: s.customerId, sessionId: s.sessionId, refId: s.items[s.items.length - 1]!, eventTime: s.start + (s.items.length - 1) * 30_000 });
    references.add(s.items);
  }
  return {
    protocol: { sessions: sessions.length, trainSessions: split, testSessions: sessions.length - split, k: K },
    results: Object.fromEntries(Object.entries(scores).map(([name, s]) => [name, result(s)])),
    viewedTogetherSessionItemsPer20: round(repeatsListed / Math.max(1, viewedTogetherLists)),
    /** Share of the targets the shopper viewed earlier in the session (not consecutively). */
    repeatTargetShare: round(repeatTargets / Math.max(1, viewedTogetherLists)),
  };
}

async function main(): Promise<void> {
  const started = Date.now();
  const sessions = process.argv.includes('--otto')
    ? ottoSessions()
    : generateSessions({ sessions: argValue('--sessions', 40_000), items: argValue('--items', 5_000), seed: argValue('--seed', 11) });
  const report = { data: process.argv.includes('--otto') ? 'otto-sample' : 'generated', ...evaluateSessions(sessions), seconds: Math.round((Date.now() - started) / 100) / 10 };
  console.log(process.argv.includes('--json') ? JSON.stringify(report) : JSON.stringify(report, null, 2));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
