/**
 * Products holding one category tree in the three forms a hierarchy reads (a path string with a
 * separator, an array of levels, one field per level), and the settings declaring each form.
 * @module
 */
import type { WebsiteSettings } from '../../config.js';
import type { Product } from '../../types.js';

export const HIERARCHY_PRODUCTS: readonly Product[] = [
  { refId: 'a', brand: 'Acme', path: 'Home > Kitchen > Pots', levels: ['Home', 'Kitchen', 'Pots'], lvl0: 'Home', lvl1: 'Kitchen', lvl2: 'Pots' },
  { refId: 'b', brand: 'Zeta', path: 'Home > Kitchen', levels: ['Home', 'Kitchen'], lvl0: 'Home', lvl1: 'Kitchen' },
  { refId: 'c', brand: 'Acme', path: 'Home > Garden', levels: ['Home', 'Garden'], lvl0: 'Home', lvl1: 'Garden' },
  { refId: 'd', brand: 'Acme', path: 'Toys', levels: ['Toys'], lvl0: 'Toys' },
  { refId: 'e', brand: 'Zeta' },
];

export const HIERARCHY_SETTINGS: WebsiteSettings = {
  hierarchies: { sep: { field: 'path', separator: '>' }, arr: { field: 'levels' }, per: { fields: ['lvl0', 'lvl1', 'lvl2'] } },
};
