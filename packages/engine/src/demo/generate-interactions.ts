/**
 * A deterministic generator of shopper behaviour over a catalog, as the wire bodies the events
 * endpoints take (`POST /3.0/events/views` and `POST /3.0/events/purchases`).
 *
 * Behaviour modelled (so that the recommendation models have something to learn):
 * - customers come back for several sessions (Zipf: a few very active customers);
 * - a session browses one category (sometimes wandering to a sibling category of the same
 *   department), viewing popular products of it more often (Zipf within the category) and, often,
 *   several variants of one style;
 * - about a quarter of sessions end in a purchase of one to three of the viewed products, and each
 *   product has a fixed "companion" in another category of its department that is often bought with it
 *   (bought-together signal beyond co-viewing).
 * @module
 */
import type { Product, PurchaseRequest, ViewRequest } from '../types.js';
import { Random, Zipf, shuffled } from '../util/seeded-random.js';

/** Options of {@link generateInteractions}. */
export interface GenerateInteractionsOptions {
  /** The catalog the shoppers browse (needs `refId`; uses `search_category`/`categories`, `style_id`, `price`, `availability`). */
  products: readonly Product[];
  /** Number of distinct customers. Default: max(10, sessions / 4). */
  customers?: number;
  /** Number of sessions. Default: min(20 000, max(50, products / 2)). */
  sessions?: number;
  /** Days of history, ending at `now`. Default 30. */
  days?: number;
  /** Seed of the pseudo-random source. Default 1. */
  seed?: number;
  /** The newest possible event time, ms since the epoch. Default 2026-01-01T00:00:00Z (fixed, so output is reproducible). */
  now?: number;
  /** Share of sessions that end with a purchase. Default 0.25. */
  purchaseRate?: number;
  /** Base URL of the shop in `currentUrl`. Default `https://shop.example.com`. */
  shopUrl?: string;
}

/** The generated wire bodies, each list in time order. */
export interface GeneratedInteractions {
  views: ViewRequest[];
  purchases: PurchaseRequest[];
}

const DAY_MS = 86_400_000;
const PAYMENT_METHODS = ['card', 'card', 'card', 'paypal', 'paypal', 'gift-card', 'bank-transfer'] as const;

function categoryOf(product: Product): string {
  if (typeof product.search_category === 'string') return product.search_category;
  const path = product.categories;
  if (Array.isArray(path) && path.length > 0) return String(path[path.length - 1]);
  return '';
}

function departmentOf(product: Product): string {
  const path = product.categories;
  return Array.isArray(path) && path.length > 0 ? String(path[0]) : categoryOf(product);
}

function numericPrice(product: Product): number {
  const p = product.price ?? product.sale_price ?? product.org_price;
  const n = typeof p === 'number' ? p : typeof p === 'string' ? Number(p) : NaN;
  return Number.isFinite(n) && n > 0 ? n : 9.99;
}

/**
 * Generates views and purchases over `products`: one views body per session (its views in time
 * order) and one purchases body per purchasing session. Customer and session ids are GUIDs drawn from
 * the seed; the same options give the same bodies.
 */
export function generateInteractions(options: GenerateInteractionsOptions): GeneratedInteractions {
  const { products } = options;
  const random = new Random((options.seed ?? 1) * 7919 + 17);
  const sessions = Math.max(0, Math.floor(options.sessions ?? Math.min(20_000, Math.max(50, Math.floor(products.length / 2)))));
  const customers = Math.max(1, Math.floor(options.customers ?? Math.max(10, Math.floor(sessions / 4))));
  const days = options.days ?? 30;
  const now = options.now ?? Date.UTC(2026, 0, 1);
  const purchaseRate = options.purchaseRate ?? 0.25;
  const shopUrl = (options.shopUrl ?? 'https://shop.example.com').replace(/\/$/, '');
  if (products.length === 0 || sessions === 0) return { views: [], purchases: [] };

  // Categories, each with its products in a seeded popularity order.
  const byCategory = new Map<string, number[]>();
  products.forEach((p, i) => {
    const key = categoryOf(p);
    let list = byCategory.get(key);
    if (!list) byCategory.set(key, (list = []));
    list.push(i);
  });
  const categoryNames = shuffled([...byCategory.keys()].sort(), random);
  // Category weight ~ its size (big categories get more traffic) with a Zipf tilt.
  const categoryZipf = new Zipf(categoryNames.length, 0.7);
  const categoryProducts = categoryNames.map((name) => shuffled(byCategory.get(name)!, random));
  const categoryIndexByName = new Map(categoryNames.map((n, i) => [n, i]));
  const byDepartment = new Map<string, number[]>();
  categoryNames.forEach((name, ci) => {
    const dept = departmentOf(products[categoryProducts[ci]![0]!]!);
    let list = byDepartment.get(dept);
    if (!list) byDepartment.set(dept, (list = []));
    list.push(ci);
  });
  const zipfBySize = new Map<number, Zipf>();
  const zipfFor = (n: number): Zipf => {
    let z = zipfBySize.get(n);
    if (!z) zipfBySize.set(n, (z = new Zipf(n, 1.0)));
    return z;
  };
  // Variants of a style, for "looked at the other colours too".
  const byStyle = new Map<string, number[]>();
  products.forEach((p, i) => {
    if (typeof p.style_id !== 'string') return;
    let list = byStyle.get(p.style_id);
    if (!list) byStyle.set(p.style_id, (list = []));
    list.push(i);
  });
  // Each product's companion: a popular product of another category of the same department.
  const companionOf = (productIndex: number): number | undefined => {
    const p = products[productIndex]!;
    const siblings = byDepartment.get(departmentOf(p)) ?? [];
    const own = categoryIndexByName.get(categoryOf(p));
    const others = siblings.filter((c) => c !== own);
    if (others.length === 0) return undefined;
    // Hash of the index, not the session's random source, so the companion is fixed per product.
    const h = Math.imul(productIndex + 1, 2654435761) >>> 0;
    const list = categoryProducts[others[h % others.length]!]!;
    return list[(h >>> 8) % Math.min(list.length, 5)];
  };

  const customerIds = Array.from({ length: customers }, () => random.guid());
  const customerZipf = new Zipf(customers, 0.8);

  interface Draft { start: number; customer: number; viewed: number[]; times: number[] }
  const drafts: Draft[] = [];
  for (let s = 0; s < sessions; s++) {
    const customer = customerZipf.sample(random);
    // More traffic in recent days (a growing shop), never after `now`.
    const start = now - Math.floor(Math.pow(random.next(), 1.3) * days * DAY_MS) - 3_600_000;
    let ci = categoryZipf.sample(random);
    const viewCount = Math.min(20, 1 + random.geometric(4));
    const viewed: number[] = [];
    const times: number[] = [];
    let t = start;
    for (let v = 0; v < viewCount; v++) {
      if (v > 0 && random.chance(0.12)) {
        const dept = departmentOf(products[categoryProducts[ci]![0]!]!);
        ci = random.pick(byDepartment.get(dept) ?? [ci]);
      }
      const list = categoryProducts[ci]!;
      let pi = list[zipfFor(list.length).sample(random)]!;
      const last = viewed[viewed.length - 1];
      if (last !== undefined && random.chance(0.3)) {
        const style = products[last]!.style_id;
        const variants = typeof style === 'string' ? byStyle.get(style) : undefined;
        if (variants && variants.length > 1) pi = random.pick(variants);
      }
      if (pi === last) continue;
      viewed.push(pi);
      times.push(t);
      t += 5_000 + Math.floor(random.next() * 90_000);
    }
    drafts.push({ start, customer, viewed, times });
  }
  drafts.sort((a, b) => a.start - b.start);

  const views: ViewRequest[] = [];
  const purchases: PurchaseRequest[] = [];
  let orderNumber = 0;
  for (const draft of drafts) {
    const customerId = customerIds[draft.customer]!;
    const sessionId = random.guid();
    views.push({
      customerId,
      sessionId,
      events: draft.viewed.map((pi, k) => ({
        currentUrl: `${shopUrl}/p/${encodeURIComponent(products[pi]!.refId)}`,
        eventTime: new Date(draft.times[k]!).toISOString(),
        refId: products[pi]!.refId,
      })),
    });
    if (draft.viewed.length === 0 || !random.chance(purchaseRate)) continue;
    const distinct = [...new Set(draft.viewed)];
    const basket = new Set<number>();
    const wanted = Math.min(distinct.length, random.chance(0.6) ? 1 : random.int(2, 3));
    for (const pi of shuffled(distinct, random)) {
      if (basket.size >= wanted) break;
      if (products[pi]!.availability === 0) continue;
      basket.add(pi);
    }
    if (basket.size === 0) continue;
    for (const pi of [...basket]) {
      const companion = companionOf(pi);
      if (companion !== undefined && random.chance(0.45) && products[companion]!.availability !== 0) basket.add(companion);
    }
    const lastView = draft.times[draft.times.length - 1]!;
    const eventTime = Math.min(now, lastView + 60_000 + Math.floor(random.next() * 600_000));
    purchases.push({
      customerId,
      sessionId,
      events: [{
        currentUrl: `${shopUrl}/checkout/complete`,
        eventTime: new Date(eventTime).toISOString(),
        orderId: `ORD-${String(++orderNumber).padStart(7, '0')}`,
        currencyCode: 'EUR',
        paymentMethod: random.pick(PAYMENT_METHODS),
        products: [...basket].map((pi) => ({
          refId: products[pi]!.refId,
          quantity: random.chance(0.8) ? 1 : random.int(2, 3),
          price: numericPrice(products[pi]!),
        })),
      }],
    });
  }
  purchases.sort((a, b) => a.events[0]!.eventTime.localeCompare(b.events[0]!.eventTime));
  return { views, purchases };
}
