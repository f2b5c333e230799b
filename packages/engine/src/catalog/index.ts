/**
 * The columnar product catalog, its snapshots and the tokenizer.
 * @module
 */
export { Catalog, type CatalogOptions } from './catalog.js';
export { saveCatalogSnapshot, loadCatalogSnapshot } from './snapshot.js';
export { tokenize, foldText } from './tokenizer.js';
