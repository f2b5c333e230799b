/**
 * The website settings that shape matching and ranking — `language`, `stopWords`, `synonyms`,
 * `typoTolerance`, `ranking`, `fieldWeights` — their types, validation and defaults. Every one is read
 * per request from the website's current settings object (never baked into a catalog version), so
 * a settings change applies to the next search.
 * @module
 */
import { fieldError } from '../errors.js';
import { DEFAULT_LANGUAGE, LANGUAGES } from './language.js';

/** A one-way synonym: a query for `from` (a word or phrase) also finds each of `to`, not the reverse. */
export interface OneWaySynonym {
  from: string;
  to: string[];
}

/** A synonym entry: a group of equivalent words or phrases (two-way), or a one-way rule. */
export type SynonymEntry = string[] | OneWaySynonym;

/** Typo tolerance: a query word of `minWordSizeOneTypo`+ letters may have 1 edit, of `minWordSizeTwoTypos`+ 2. */
export interface TypoToleranceSettings {
  enabled?: boolean;
  minWordSizeOneTypo?: number;
  minWordSizeTwoTypos?: number;
}

/** A tie-breaker: a field compared after relevance (and after `sort_fields`). */
export interface TieBreaker {
  field: string;
  order: 'asc' | 'desc';
  /** How values compare; `number` by default. */
  type?: 'number' | 'text';
}

/** Ranking settings. */
export interface RankingSettings {
  tieBreakers?: TieBreaker[];
}

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
export const RELEVANCE_LIMITS = { synonyms: 10_000, stopWords: 10_000, tieBreakers: 10, wordsPerEntry: 100 } as const;

/** The settings keys this module owns (the config validator lists them as known). */
export const RELEVANCE_KEYS = ['language', 'stopWords', 'synonyms', 'typoTolerance', 'ranking', 'fieldWeights'] as const;

function fail(key: string, problem: string): never {
  throw fieldError('CONFIG_INVALID', key, problem);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkWords(v: unknown, key: string, max: number): void {
  if (!Array.isArray(v)) fail(key, 'must be an array of strings');
  if (v.length > max) fail(key, `has ${v.length} entries (at most ${max})`);
  v.forEach((w, i) => { if (typeof w !== 'string' || w.trim().length === 0) fail(`${key}[${i}]`, 'must be a non-empty string'); });
}

function checkKeys(obj: Record<string, unknown>, known: readonly string[], key: string): void {
  for (const k of Object.keys(obj)) if (!known.includes(k)) fail(`${key}.${k}`, `is not a known key (known: ${known.join(', ')})`);
}

/**
 * Validates the relevance keys of a settings object `s` (found at `key`, e.g. `websites[0].settings`).
 * Throws `CONFIG_INVALID` naming the first bad key.
 */
export function validateRelevanceSettings(s: Record<string, unknown>, key: string): void {
  if (s.language !== undefined && (typeof s.language !== 'string' || !LANGUAGES.has(s.language))) {
    fail(`${key}.language`, `must be one of ${[...LANGUAGES.keys()].join(', ')}`);
  }
  if (s.stopWords !== undefined) checkWords(s.stopWords, `${key}.stopWords`, RELEVANCE_LIMITS.stopWords);
  if (s.fieldWeights !== undefined) {
    if (!isObject(s.fieldWeights)) fail(`${key}.fieldWeights`, 'must be an object of field -> weight');
    for (const [f, w] of Object.entries(s.fieldWeights)) {
      if (typeof w !== 'number' || !Number.isFinite(w) || w < 0) fail(`${key}.fieldWeights.${f}`, 'must be a finite number, at least 0');
    }
  }
  if (s.synonyms !== undefined) {
    const k = `${key}.synonyms`;
    if (!Array.isArray(s.synonyms)) fail(k, 'must be an array of word groups or {from, to} entries');
    if (s.synonyms.length > RELEVANCE_LIMITS.synonyms) fail(k, `has ${s.synonyms.length} entries (at most ${RELEVANCE_LIMITS.synonyms})`);
    s.synonyms.forEach((entry: unknown, i: number) => {
      const ek = `${k}[${i}]`;
      if (Array.isArray(entry)) {
        checkWords(entry, ek, RELEVANCE_LIMITS.wordsPerEntry);
        if (entry.length < 2) fail(ek, 'must list at least two equivalent words or phrases');
      } else if (isObject(entry)) {
        checkKeys(entry, ['from', 'to'], ek);
        if (typeof entry.from !== 'string' || entry.from.trim().length === 0) fail(`${ek}.from`, 'must be a non-empty string');
        checkWords(entry.to, `${ek}.to`, RELEVANCE_LIMITS.wordsPerEntry);
        if ((entry.to as unknown[]).length === 0) fail(`${ek}.to`, 'must list at least one word or phrase');
      } else fail(ek, 'must be an array of words or an object {from, to}');
    });
  }
  if (s.typoTolerance !== undefined) {
    const k = `${key}.typoTolerance`;
    const t = s.typoTolerance;
    if (!isObject(t)) fail(k, 'must be an object {enabled, minWordSizeOneTypo, minWordSizeTwoTypos}');
    checkKeys(t, ['enabled', 'minWordSizeOneTypo', 'minWordSizeTwoTypos'], k);
    if (t.enabled !== undefined && typeof t.enabled !== 'boolean') fail(`${k}.enabled`, 'must be true or false');
    for (const n of ['minWordSizeOneTypo', 'minWordSizeTwoTypos'] as const) {
      const v = t[n];
      if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 1000)) fail(`${k}.${n}`, 'must be an integer from 1 to 1000');
    }
    const one = (t.minWordSizeOneTypo as number | undefined) ?? DEFAULT_TYPO_TOLERANCE.minWordSizeOneTypo;
    const two = (t.minWordSizeTwoTypos as number | undefined) ?? DEFAULT_TYPO_TOLERANCE.minWordSizeTwoTypos;
    if (two < one) fail(`${k}.minWordSizeTwoTypos`, `must be at least minWordSizeOneTypo (${one})`);
  }
  if (s.ranking !== undefined) {
    const k = `${key}.ranking`;
    if (!isObject(s.ranking)) fail(k, 'must be an object {tieBreakers}');
    checkKeys(s.ranking, ['tieBreakers'], k);
    const tb = s.ranking.tieBreakers;
    if (tb !== undefined) {
      if (!Array.isArray(tb)) fail(`${k}.tieBreakers`, 'must be an array of {field, order}');
      if (tb.length > RELEVANCE_LIMITS.tieBreakers) fail(`${k}.tieBreakers`, `has ${tb.length} entries (at most ${RELEVANCE_LIMITS.tieBreakers})`);
      tb.forEach((b: unknown, i: number) => {
        const bk = `${k}.tieBreakers[${i}]`;
        if (!isObject(b)) fail(bk, 'must be an object {field, order}');
        checkKeys(b, ['field', 'order', 'type'], bk);
        if (typeof b.field !== 'string' || b.field.length === 0) fail(`${bk}.field`, 'must be a non-empty string');
        if (b.field === '_score') fail(`${bk}.field`, 'cannot be _score (relevance already comes before the tie-breakers)');
        if (b.order !== 'asc' && b.order !== 'desc') fail(`${bk}.order`, 'must be "asc" or "desc"');
        if (b.type !== undefined && b.type !== 'number' && b.type !== 'text') fail(`${bk}.type`, 'must be "number" or "text"');
      });
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
