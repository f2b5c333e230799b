/**
 * The website settings that shape matching and ranking — `language`, `stopWords`, `synonyms`,
 * `typoTolerance`, `ranking`, `fieldWeights` — their types, validation and defaults. Every one is read
 * per request from the website's current settings object (never baked into a catalog version), so
 * a settings change applies to the next search.
 * @module
 */
import { fieldError } from '../errors.js';
import { NOT_FULL_TEXT_FIELDS } from '../catalog/field-values.js';
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

/**
 * Refuses, with `code` naming `<key>.fieldWeights.<field>`, a weight above 0 on a field that is never
 * indexed for full text (an identifier or a link, `NOT_FULL_TEXT_FIELDS`): it would change nothing, and
 * was stored as if it did (a search by refId still found nothing). Checked where settings are given —
 * the config file at start, the settings API — and not on settings read back from the store, which were
 * taken before this check and must keep applying.
 */
export function checkWeightsSearchable(fieldWeights: Readonly<Record<string, number>> | undefined, key: string, code: 'CONFIG_INVALID' | 'SETTINGS_INVALID'): void {
  for (const [field, weight] of Object.entries(fieldWeights ?? {})) {
    if (weight > 0 && NOT_FULL_TEXT_FIELDS.has(field)) {
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
