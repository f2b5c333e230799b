/**
 * The columnar product catalog, its snapshots and the tokenizer.
 * @module
 */
export { Catalog, type CatalogOptions } from './catalog.js';
export { saveCatalogSnapshot, loadCatalogSnapshot } from './durability/snapshot.js';
export { tokenize, foldText } from './full-text/tokenizer.js';
export { MAX_PRODUCT_DEPTH, MAX_PRODUCT_FIELDS, MAX_PRODUCT_CHARS, MAX_WORDS_PER_FIELD } from './input/product-limits.js';
