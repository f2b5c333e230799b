/**
 * The website settings that shape matching and ranking — `language`, `stopWords`, `synonyms`,
 * `typoTolerance`, `ranking`, `fieldWeights` — their types, validation and defaults. Every one is read
 * per request from the website's current settings object (never baked into a catalog version), so
 * a settings change applies to the next search.
 * @module
 */
import { fieldError } from '../errors.js';
import { NOT_FULL_TEXT_FIELDS } from '../catalog/field-values.js';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import { DEFAULT_LANGUAGE, LANGUAGES } from './language.js';

export type {
  OneWaySynonym, SynonymEntry, TypoToleranceSettings, TieBreaker, RankingSettings,
} from '../contract/settings-schema.js';
import type { RankingSettings, SynonymEntry, TieBreaker, TypoToleranceSettings } from '../contract/settings-schema.js';

/** The relevance settings with defaults filled in (what a search reads). */
export interface ResolvedRelevance {
  language: string;
  stopWords: string[];
  synonyms: SynonymEntry[];
  typoTolerance: Required<TypoToleranceSettings>;
  ranking: { tieBreakers: TieBreaker[] };
  fieldWeights: Record<string, number>;
}

/** Defaults of `typoTolerance` (Typesense/Algolia-like word lengths). */
export const DEFAULT_TYPO_TOLERANCE: Readonly<Required<TypoToleranceSettings>> = Object.freeze({
  enabled: true, minWordSizeOneTypo: 4, minWordSizeTwoTypos: 8,
});

/** Most synonym entries, stop words and tie-breakers a website may set. */
export { RELEVANCE_LIMITS } from '../contract/limits.js';

function fail(key: string, problem: string): never {
  throw fieldError('CONFIG_INVALID', key, problem);
}

/** The relevance keys of a website's settings, as the contract's settings schema has typed them. */
export interface RelevanceSettings {
  language?: string;
  typoTolerance?: TypoToleranceSettings;
  ranking?: RankingSettings;
}

/**
 * The relevance rules a schema cannot state, for settings already checked against the contract's
 * settings schema (found at `key`, e.g. `websites[0].settings`): a language aisle can stem, typo word
 * sizes in order, no `_score` tie-breaker. Throws `CONFIG_INVALID` naming the first bad key.
 */
export function validateRelevanceSettings(s: RelevanceSettings, key: string): void {
  if (s.language !== undefined && !LANGUAGES.has(s.language)) {
    fail(`${key}.language`, `must be one of ${[...LANGUAGES.keys()].join(', ')}`);
  }
  if (s.typoTolerance !== undefined) {
    const one = s.typoTolerance.minWordSizeOneTypo ?? DEFAULT_TYPO_TOLERANCE.minWordSizeOneTypo;
    const two = s.typoTolerance.minWordSizeTwoTypos ?? DEFAULT_TYPO_TOLERANCE.minWordSizeTwoTypos;
    if (two < one) fail(`${key}.typoTolerance.minWordSizeTwoTypos`, `must be at least minWordSizeOneTypo (${one})`);
  }
  s.ranking?.tieBreakers?.forEach((b, i) => {
    if (b.field === '_score') fail(`${key}.ranking.tieBreakers[${i}].field`, 'cannot be _score (relevance already comes before the tie-breakers)');
  });
}

/** The keys of given settings that {@link checkGivenSettings} reads (each as the schema types it, or absent). */
export interface GivenSettings {
  fieldWeights?: Readonly<Record<string, number | null>> | null;
  redirects?: readonly { queries: readonly string[] }[] | null;
  rules?: readonly { query: string }[] | null;
  synonyms?: readonly SynonymEntry[] | null;
  stopWords?: readonly string[] | null;
}

/**
 * Refuses, with `code` naming the key under `key`, what settings *give* that would do nothing or not what
 * it says — checked where settings are given (the config file at start, the settings API: the body of a
 * PUT or a PATCH, not stored values it keeps), never on settings read back from the store, which were
 * taken before these checks and must keep applying on every replica:
 * - a weight above 0 on a field never indexed for full text (an identifier or a link,
 *   `NOT_FULL_TEXT_FIELDS`): it was stored and a search by refId still found nothing;
 * - a redirect query without a word (`"!!!"`, `"™"`): it normalises to the query of a search without words
 *   and redirected every category page (searches without words are never redirected now);
 * - a rule query that is not `""` but has no word: it is the rule of `""` (every query with `contains`,
 *   searches without words with `exact`), which `""` says plainly;
 * - a synonym or a stop word without a word (`["™", "chair"]`, `{from: "!!!"}`): it matches nothing.
 */
export function checkGivenSettings(given: GivenSettings | undefined, key: string, code: 'CONFIG_INVALID' | 'SETTINGS_INVALID'): void {
  checkWeightsSearchable(given?.fieldWeights ?? undefined, key, code);
  (given?.redirects ?? []).forEach((rule, i) => rule.queries.forEach((query, j) => {
    if (tokenize(query).length === 0) {
      throw fieldError(code, `${key}.redirects[${i}].queries[${j}]`, 'has no word to match (letters or digits): a search without words, such as a category page, is never redirected');
    }
  }));
  const wordless = (text: string, at: string) => {
    if (tokenize(text).length === 0) throw fieldError(code, at, 'has no word (letters or digits): it would match nothing');
  };
  (given?.stopWords ?? []).forEach((word, i) => wordless(word, `${key}.stopWords[${i}]`));
  (given?.synonyms ?? []).forEach((entry, i) => {
    if (Array.isArray(entry)) entry.forEach((member, j) => wordless(member, `${key}.synonyms[${i}][${j}]`));
    else {
      wordless(entry.from, `${key}.synonyms[${i}].from`);
      entry.to.forEach((target, j) => wordless(target, `${key}.synonyms[${i}].to[${j}]`));
    }
  });
  (given?.rules ?? []).forEach((rule, i) => {
    if (rule.query !== '' && tokenize(rule.query).length === 0) {
      throw fieldError(code, `${key}.rules[${i}].query`, 'has no word to match (letters or digits): it would be the rule of "" (with match "contains" every query, with "exact" searches without words); write "" for that');
    }
  });
}

function checkWeightsSearchable(fieldWeights: Readonly<Record<string, number | null>> | undefined, key: string, code: 'CONFIG_INVALID' | 'SETTINGS_INVALID'): void {
  for (const [field, weight] of Object.entries(fieldWeights ?? {})) {
    if (weight !== null && weight > 0 && NOT_FULL_TEXT_FIELDS.has(field)) {
      throw fieldError(code, `${key}.fieldWeights.${field}`, `is never searched: identifiers and links (${[...NOT_FULL_TEXT_FIELDS].join(', ')}) `
        + 'are not indexed for full text; to search by it, copy its text into a field of its own (e.g. "sku")');
    }
  }
}

/** The relevance settings a search uses: `settings` (any website settings object) with defaults filled in. */
export function resolveRelevance(settings: {
  language?: string; stopWords?: string[]; synonyms?: SynonymEntry[]; typoTolerance?: TypoToleranceSettings;
  ranking?: RankingSettings; fieldWeights?: Record<string, number>;
} | undefined): ResolvedRelevance {
  return {
    language: settings?.language ?? DEFAULT_LANGUAGE,
    stopWords: settings?.stopWords ?? [],
    synonyms: settings?.synonyms ?? [],
    typoTolerance: { ...DEFAULT_TYPO_TOLERANCE, ...settings?.typoTolerance },
    ranking: { tieBreakers: settings?.ranking?.tieBreakers ?? [] },
    fieldWeights: settings?.fieldWeights ?? {},
  };
}
