/**
 * A deterministic generator of realistic shop products, for the demo website, tests and benchmarks.
 *
 * Shape of the data (what makes it behave like a real catalog under search):
 * - ~200 leaf categories in ~22 departments, chosen with a Zipf law (a few big categories, a long tail);
 * - ~500 brands, Zipf-distributed, each department drawing mostly from its own brands;
 * - titles `brand + adjectives + colour/material + product noun + variant`, the words Zipf-distributed;
 * - log-normal prices around a per-department median; some products on sale;
 * - products come in style groups (1–4 variants sharing `style_id`, brand and noun, differing in colour
 *   or size); about 70% carry a 16-float `image_vector` close to their category's centroid, so
 *   visual similarity groups products of a kind.
 * @module
 */
import type { Product } from '../types.js';
import { Random, Zipf, shuffled } from '../util/seeded-random.js';
import { ADJECTIVES, BRAND_HEADS, BRAND_TAILS, COLOURS, DEPARTMENT_VARIANT_KIND, DEPARTMENTS, MATERIALS, VARIANTS_BY_KIND } from './vocabulary.js';

/** Options of {@link generateCatalog} and {@link generateCatalogStream}. */
export interface GenerateCatalogOptions {
  /** Number of products to generate. */
  count: number;
  /** Seed of the pseudo-random source; the same seed and count give the same products. Default 1. */
  seed?: number;
  /** Length of `image_vector`. Default 16. */
  vectorDimensions?: number;
  /** Share of products with an `image_vector`. Default 0.7. */
  vectorShare?: number;
}

/** One leaf category of the generated catalog. */
export interface GeneratedCategory {
  /** The leaf name (`search_category`). */
  name: string;
  /** The path from the department to the leaf (`categories`). */
  path: string[];
  /** The product noun used in titles. */
  noun: string;
  departmentIndex: number;
}

/** Number of brands in the generated catalog. */
export const BRAND_COUNT = 500;

const PRODUCT_TYPES = ['simple', 'simple', 'simple', 'configurable', 'configurable', 'bundle', 'virtual'] as const;

/** The fixed taxonomy (same for every seed, so queries written against it work on any catalog). */
export const CATEGORIES: readonly GeneratedCategory[] = DEPARTMENTS.flatMap((dept, departmentIndex) =>
  dept.leaves.map(([name, noun, group]) => ({ name, noun, departmentIndex, path: [dept.name, group, name] })));

/** The fixed brand list (same for every seed). */
export const BRANDS: readonly string[] = (() => {
  const all: string[] = [];
  for (const head of BRAND_HEADS) for (const tail of BRAND_TAILS) all.push(head + tail);
  return shuffled(all, new Random(7)).slice(0, BRAND_COUNT);
})();

/** Everything derived from the seed once, before the products are drawn. */
interface CatalogModel {
  random: Random;
  categoryOrder: number[];
  categoryZipf: Zipf;
  brandsByDepartment: string[][];
  departmentBrandZipf: Zipf;
  globalBrandZipf: Zipf;
  adjectiveZipf: Zipf;
  colourZipf: Zipf;
  materialZipf: Zipf;
  variantZipfs: Map<number, Zipf>;
  centroids: Float64Array[];
  dims: number;
  vectorShare: number;
}

function buildModel(seed: number, dims: number, vectorShare: number): CatalogModel {
  const random = new Random(seed);
  // Category popularity order differs by seed; the taxonomy itself does not.
  const categoryOrder = shuffled(CATEGORIES.map((_, i) => i), random);
  // Each department draws mostly from 60 brands of its own (overlapping between departments).
  const brandsByDepartment = DEPARTMENTS.map(() => shuffled(BRANDS, random).slice(0, 60));
  const centroids = CATEGORIES.map((c) => {
    const v = new Float64Array(dims);
    // Centroids share a department component, so sibling categories look alike too.
    const deptRandom = new Random(seed * 131 + c.departmentIndex + 1);
    for (let d = 0; d < dims; d++) v[d] = deptRandom.normal() * 0.6 + random.normal() * 0.8;
    return v;
  });
  return {
    random,
    categoryOrder,
    categoryZipf: new Zipf(CATEGORIES.length, 0.9),
    brandsByDepartment,
    departmentBrandZipf: new Zipf(60, 1.1),
    globalBrandZipf: new Zipf(BRANDS.length, 1.0),
    adjectiveZipf: new Zipf(ADJECTIVES.length, 1.0),
    colourZipf: new Zipf(COLOURS.length, 1.0),
    materialZipf: new Zipf(MATERIALS.length, 1.0),
    variantZipfs: new Map(Object.values(VARIANTS_BY_KIND).map((list) => [list.length, new Zipf(list.length, 0.8)])),
    centroids,
    dims,
    vectorShare,
  };
}

function roundTo(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}

/** A shop-looking price: two decimals, mostly ending in .99 / .49 / .00. */
function shopPrice(raw: number, random: Random): number {
  const whole = Math.max(0, Math.floor(raw));
  const cents = random.pick([0.99, 0.99, 0.99, 0.49, 0.95, 0]);
  return roundTo(whole + cents || 0.99, 2);
}

function imageVector(model: CatalogModel, categoryIndex: number, styleNoise: Float64Array): number[] {
  const { random, dims } = model;
  const centroid = model.centroids[categoryIndex]!;
  const v = new Array<number>(dims);
  let norm = 0;
  for (let d = 0; d < dims; d++) {
    const x = centroid[d]! + styleNoise[d]! + random.normal() * 0.15;
    v[d] = x;
    norm += x * x;
  }
  norm = Math.sqrt(norm) || 1;
  for (let d = 0; d < dims; d++) v[d] = roundTo(v[d]! / norm, 4);
  return v;
}

/**
 * Generates products one at a time, so a million-product catalog can be written to a file or fed to
 * a loader without holding it twice. The sequence is the same as {@link generateCatalog}'s.
 */
export function* generateCatalogStream(options: GenerateCatalogOptions): Generator<Product> {
  const count = Math.max(0, Math.floor(options.count));
  const dims = options.vectorDimensions ?? 16;
  const model = buildModel(options.seed ?? 1, dims, options.vectorShare ?? 0.7);
  const { random } = model;
  const idWidth = Math.max(7, String(count).length);
  let index = 0;
  let styleNumber = 0;
  while (index < count) {
    // One style group: variants sharing brand, noun, category, base price and look.
    const categoryIndex = model.categoryOrder[model.categoryZipf.sample(random)]!;
    const category = CATEGORIES[categoryIndex]!;
    const dept = DEPARTMENTS[category.departmentIndex]!;
    const brand = random.chance(0.85)
      ? model.brandsByDepartment[category.departmentIndex]![model.departmentBrandZipf.sample(random)]!
      : BRANDS[model.globalBrandZipf.sample(random)]!;
    const adjectives: string[] = [ADJECTIVES[model.adjectiveZipf.sample(random)]!];
    if (random.chance(0.45)) {
      const second = ADJECTIVES[model.adjectiveZipf.sample(random)]!;
      if (second !== adjectives[0]) adjectives.push(second);
    }
    const material = random.chance(0.4) ? MATERIALS[model.materialZipf.sample(random)]! : undefined;
    const basePrice = random.logNormal(Math.log(dept.medianPrice), 0.75);
    const baseHeight = random.logNormal(Math.log(dept.medianHeightCm), 0.4);
    const type = random.pick(PRODUCT_TYPES);
    const ratingBase = 1 + random.next() * 4;
    const hasVectors = random.chance(model.vectorShare);
    const styleNoise = new Float64Array(dims);
    for (let d = 0; d < dims; d++) styleNoise[d] = random.normal() * 0.35;
    const variants = Math.min(count - index, random.chance(0.5) ? 1 : random.int(2, 4));
    const styleId = `STY-${String(++styleNumber).padStart(idWidth, '0')}`;
    const usedColours = new Set<string>();
    for (let v = 0; v < variants; v++) {
      let colour: string = COLOURS[model.colourZipf.sample(random)]!;
      if (usedColours.has(colour)) colour = COLOURS[(COLOURS.indexOf(colour as (typeof COLOURS)[number]) + v) % COLOURS.length]!;
      usedColours.add(colour);
      const variantWords = VARIANTS_BY_KIND[DEPARTMENT_VARIANT_KIND[dept.name] ?? 'general'];
      const variant = random.chance(0.55) ? variantWords[model.variantZipfs.get(variantWords.length)!.sample(random)]! : undefined;
      const words = [brand, ...adjectives, colour];
      if (material) words.push(material);
      words.push(category.noun);
      if (variant) words.push(variant);
      const title = words.join(' ');

      const orgPrice = shopPrice(basePrice * (1 + (random.next() - 0.5) * 0.1), random);
      const onSale = random.chance(0.35);
      const salePrice = onSale ? shopPrice(orgPrice * (0.5 + random.next() * 0.45), random) : undefined;
      const price = salePrice ?? orgPrice;
      const availabilityRoll = random.next();
      const availability = availabilityRoll < 0.1 ? -1 : availabilityRoll < 0.25 ? 0 : Math.min(999, random.geometric(40));

      const product: Product = {
        refId: `SKU-${String(index + 1).padStart(idWidth, '0')}`,
        title,
        brand,
        search_category: category.name,
        categories: category.path.slice(),
        colour,
        type,
        style_id: styleId,
        price,
        // The spec shows org_price both as a number and as a numeric string; so does the demo data.
        org_price: random.chance(0.15) ? orgPrice.toFixed(2) : orgPrice,
        availability,
        height: roundTo(baseHeight * (1 + (random.next() - 0.5) * 0.2), 1),
      };
      if (salePrice !== undefined) product.sale_price = salePrice;
      if (random.chance(0.8)) product.ratings = roundTo(Math.min(5, Math.max(1, ratingBase + (random.next() - 0.5))), 1);
      if (hasVectors) product.image_vector = imageVector(model, categoryIndex, styleNoise);
      yield product;
      index++;
    }
  }
}

/** Generates `count` products (deterministic for the seed). See {@link generateCatalogStream} for large catalogs. */
export function generateCatalog(options: GenerateCatalogOptions): Product[] {
  return Array.from(generateCatalogStream(options));
}
