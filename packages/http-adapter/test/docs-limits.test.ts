/**
 * The limits the documents state are the limits the code enforces: each documented figure is read
 * from the page and compared with the one constant (or schema bound) that enforces it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  MAX_CART_ITEMS, FACET_SEARCH_SIZE, HIERARCHY_LIMITS, MAX_BULK_DELETE_REFIDS, MAX_COUNT, RELEVANCE_LIMITS, RULE_LIMITS, SETTINGS_LIMITS,
  SETTINGS_MAX_ARRAY_ITEMS, SUGGESTION_LIMITS,
} from '@aisle/engine';
import { describe, expect, it } from 'vitest';
import { byteSize, DEFAULT_LIMITS } from '../src/limits.js';

const docs = (name: string) => readFileSync(fileURLToPath(new URL(`../../../docs/${name}`, import.meta.url)), 'utf8');
/** The table row of a page whose first cell contains `first`. */
function row(page: string, first: string): string {
  const line = page.split('\n').find((l) => l.startsWith('|') && l.split('|')[1]!.includes(first));
  if (line === undefined) throw new Error(`no row "${first}"`);
  return line;
}
const n = (text: string) => Number(text.replace(/,/g, ''));

describe('documented limits', () => {
  const http = docs('http-api.md');
  const ops = docs('operations.md');

  it('HTTP listener limits (docs/http-api.md "Limits")', () => {
    expect(row(http, 'JSON body size')).toContain(`| ${byteSize(DEFAULT_LIMITS.maxBytes)} |`);
    expect(row(http, 'admin product upload size')).toContain(`| ${byteSize(DEFAULT_LIMITS.adminMaxBytes)} |`);
    expect(row(http, 'JSON nesting depth')).toContain(`| ${DEFAULT_LIMITS.maxDepth} |`);
    expect(row(http, 'elements of any array')).toContain(`| ${DEFAULT_LIMITS.maxArrayLength} |`);
    expect(n(/(\d[\d,]*) elements/.exec(row(http, 'bulk delete body'))![1]!)).toBe(MAX_BULK_DELETE_REFIDS);
    expect(n(/(\d[\d,]*) elements/.exec(row(http, 'settings body'))![1]!)).toBe(SETTINGS_MAX_ARRAY_ITEMS);
    expect(row(http, '`items` entries')).toContain(`| ${MAX_CART_ITEMS} |`);
    expect(row(http, '`count` of recommendations')).toContain(`1–${MAX_COUNT}`);
  });

  it('settings bounds (docs/operations.md settings table)', () => {
    const atMost = (first: string) => n(/at most ([\d,]+)/.exec(row(ops, first))![1]!);
    expect(atMost('`settings.synonyms`')).toBe(RELEVANCE_LIMITS.synonyms);
    expect(atMost('`settings.ranking.tieBreakers`')).toBe(RELEVANCE_LIMITS.tieBreakers);
    expect(atMost('`settings.redirects`')).toBe(SETTINGS_LIMITS.redirects);
    expect(atMost('`settings.cors.origins`')).toBe(SETTINGS_LIMITS.corsOrigins);
    expect(n(/at most ([\d,]+)/.exec(row(ops, '`settings.rules`'))![1]!)).toBe(RULE_LIMITS.rules);
    expect(row(ops, '`settings.fieldWeights`')).toContain(`0–${SETTINGS_LIMITS.fieldWeight}`);
    expect(row(ops, '`settings.attributionWindowDays`')).toContain(`0–${SETTINGS_LIMITS.attributionWindowDays}`);
    expect(row(ops, "`settings.suggestions`")).toContain(`(1–${SUGGESTION_LIMITS.minSessions})`);
    expect(atMost('`settings.hierarchies`')).toBe(HIERARCHY_LIMITS.hierarchies);
  });

  it('hierarchical facets and facet search (docs/http-api.md search request)', () => {
    expect(row(http, '`hierarchical_facets`')).toContain(`(≤ ${HIERARCHY_LIMITS.hierarchies})`);
    expect(http).toContain(`(size 1–${FACET_SEARCH_SIZE.max},\n  default ${FACET_SEARCH_SIZE.default})`);
    expect(http).toContain(`at most ${HIERARCHY_LIMITS.nodesPerLevel} (\`HIERARCHY_LIMITS.nodesPerLevel\``);
  });
});
