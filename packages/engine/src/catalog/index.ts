/**
 * The columnar product catalog, its snapshots and the tokenizer.
 * @module
 */
export { Catalog, type CatalogOptions } from './catalog.js';
export { saveCatalogSnapshot, loadCatalogSnapshot } from './snapshot.js';
export { tokenize, foldText } from './tokenizer.js';
export { MAX_PRODUCT_DEPTH, MAX_PRODUCT_FIELDS, MAX_PRODUCT_CHARS, MAX_WORDS_PER_FIELD } from './product-limits.js';
