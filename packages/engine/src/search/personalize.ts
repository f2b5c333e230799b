/**
 * Personalization signal: a customer's affinities learned from what they viewed and bought (the
 * recommendation models' customer history), as a value in [0, 1] per product. Read through field roles
 * (which product field holds the brand, which the category), never through a data set's own names.
 * @module
 */
import type { Product } from '../types.js';

/** A customer's history, newest first (RefIds), as the recommendation models keep it. */
export interface CustomerActivity {
  purchased: readonly string[];
  /** Views of the latest session. */
  recent: readonly string[];
  /** Views of earlier sessions. */
  historic: readonly string[];
}

/** Which product fields carry the brand and the category (a list: several category fields, e.g. a path). */
export interface AffinityRoles {
  brand?: string;
  category?: string | readonly string[];
}

/** The spec's own field names, used when the website names no field roles. */
export const DEFAULT_AFFINITY_ROLES: Readonly<AffinityRoles> = { brand: 'brand', category: 'search_category' };

/** The roles personalization reads: the website's field roles where it names them, else the defaults. */
export function affinityRolesOf(fieldRoles: AffinityRoles | undefined): AffinityRoles {
  return { brand: fieldRoles?.brand ?? DEFAULT_AFFINITY_ROLES.brand, category: fieldRoles?.category ?? DEFAULT_AFFINITY_ROLES.category };
}

/** Weight of one history entry by kind: a purchase says more than a view of this session, more than an older view. */
export const ACTIVITY_WEIGHTS = { purchased: 1, recent: 0.6, historic: 0.4 } as const;

/** Each older entry of a list counts this much less than the one before (newest first). */
export const ACTIVITY_DECAY = 0.85;

/** Share of each kind of affinity in a product's value (they sum to 1). */
export const AFFINITY_SHARES = { brand: 0.4, category: 0.4, product: 0.2 } as const;

/** What a customer likes: weight per product, brand and category value, each scaled so its top is 1. */
export interface AffinityProfile {
  products: Map<string, number>;
  brands: Map<string, number>;
  categories: Map<string, number>;
  categoryFields: readonly string[];
  brandField?: string;
}

function values(product: Product, field: string | undefined): string[] {
  if (field === undefined) return [];
  const v = (product as Record<string, unknown>)[field];
  if (typeof v === 'string' && v !== '') return [v];
  if (typeof v === 'number' && Number.isFinite(v)) return [String(v)];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string' && x !== '');
  return [];
}

function add(map: Map<string, number>, key: string, w: number): void {
  map.set(key, (map.get(key) ?? 0) + w);
}

function scaleToMax(map: Map<string, number>): void {
  let max = 0;
  for (const w of map.values()) if (w > max) max = w;
  if (max > 0) for (const [k, w] of map) map.set(k, w / max);
}

function categoryFieldsOf(roles: AffinityRoles): string[] {
  const c = roles.category;
  return c === undefined ? [] : typeof c === 'string' ? [c] : [...c];
}

/**
 * The affinity profile of a customer. `productOf` looks a RefId up in the current catalog (products
 * no longer in it still count as products, but give no brand or category). Undefined when the
 * history is empty.
 */
export function affinityProfile(activity: CustomerActivity, productOf: (refId: string) => Product | undefined, roles: AffinityRoles): AffinityProfile | undefined {
  const profile: AffinityProfile = {
    products: new Map(), brands: new Map(), categories: new Map(), categoryFields: categoryFieldsOf(roles), brandField: roles.brand,
  };
  for (const kind of ['purchased', 'recent', 'historic'] as const) {
    let w = ACTIVITY_WEIGHTS[kind];
    for (const refId of activity[kind]) {
      add(profile.products, refId, w);
      const product = productOf(refId);
      if (product) {
        for (const b of values(product, roles.brand)) add(profile.brands, b, w);
        for (const f of profile.categoryFields) for (const c of values(product, f)) add(profile.categories, `${f}\u0000${c}`, w);
      }
      w *= ACTIVITY_DECAY;
    }
  }
  if (profile.products.size === 0) return undefined;
  scaleToMax(profile.products);
  scaleToMax(profile.brands);
  scaleToMax(profile.categories);
  return profile;
}

/** A product's affinity for the profile, in [0, 1]: the shares of brand, category and product affinity. */
export function affinityOf(profile: AffinityProfile, product: Product): number {
  let brand = 0;
  for (const b of values(product, profile.brandField)) brand = Math.max(brand, profile.brands.get(b) ?? 0);
  let category = 0;
  for (const f of profile.categoryFields) for (const c of values(product, f)) category = Math.max(category, profile.categories.get(`${f}\u0000${c}`) ?? 0);
  const own = typeof product.refId === 'string' ? profile.products.get(product.refId) ?? 0 : 0;
  return AFFINITY_SHARES.brand * brand + AFFINITY_SHARES.category * category + AFFINITY_SHARES.product * own;
}
