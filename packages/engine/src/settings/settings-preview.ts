/**
 * A ranking preview (`POST …/settings/preview`): reading its body into a search of the website and a
 * settings patch, and comparing the two pages searched under the settings before and after the patch.
 * Pure; the engine runs the searches (engine.ts, `previewSettings`).
 * @module
 */
import { checkAgainst } from '../contract/validate.js';
import type { PreviewRanking, SearchPayload, SearchRequest, SettingsPreview, SettingsPreviewRequest } from '../contract/schemas.js';
import { fieldError, fieldErrorParts, isAisleError } from '../errors.js';
import { validateSearchRequest } from '../search/index.js';

/** A preview body, read: the search to rank (website and client filled in) and the settings patch. */
export interface PreviewInput {
  search: SearchRequest;
  settings: Record<string, unknown>;
}

function badPreview(path: string, problem: string): never {
  throw fieldError('PREVIEW_BAD_REQUEST', path, problem);
}

/**
 * Checks a preview body (`PREVIEW_BAD_REQUEST` naming the field, e.g. `search.size`) and returns its
 * search as a full search request of `websiteId` and `client`, `q` "" and `start` 0 unless given. The
 * settings patch is only checked to be an object here: it is validated after the merge, as a PATCH is.
 */
export function parsePreviewRequest(body: unknown, websiteId: string, client: string): PreviewInput {
  const valid = checkAgainst<SettingsPreviewRequest>('SettingsPreviewRequest', body, badPreview);
  try {
    // The path's website and its client, whatever the body says: a preview searches its own website only.
    const search = validateSearchRequest({ q: '', start: 0, ...valid.search, website_id: websiteId, client });
    return { search, settings: valid.settings };
  } catch (err) {
    // The checks the schema cannot state (range bounds ascend), named under `search.`.
    if (!isAisleError(err) || err.code !== 'SEARCH_BAD_REQUEST') throw err;
    const parts = fieldErrorParts(err);
    if (parts === undefined) throw err;
    // The problem kept, the field named under search.
    badPreview(`search.${parts.key}`, parts.problem);
  }
}

function rankingOf(payload: SearchPayload): PreviewRanking {
  const ranking: PreviewRanking = { total_results: payload.total_results, result: payload.result };
  if (payload.redirects.url !== undefined) ranking.redirect = payload.redirects.url;
  return ranking;
}

/**
 * The preview of one page (`start`: its offset) searched before and after a change: both pages, and
 * each product's 1-based position on each (null off the page) — first the page after the change in
 * its order, then the products that left it, in their order before.
 */
export function previewOf(start: number, before: SearchPayload, after: SearchPayload): SettingsPreview {
  const positions = (payload: SearchPayload) => new Map(payload.result.map((p, i) => [p.refId, start + i + 1]));
  const was = positions(before);
  const is = positions(after);
  const moves = [
    ...after.result.map((p) => ({ refId: p.refId, before: was.get(p.refId) ?? null, after: is.get(p.refId)! })),
    ...before.result.filter((p) => !is.has(p.refId)).map((p) => ({ refId: p.refId, before: was.get(p.refId)!, after: null })),
  ];
  return { before: rankingOf(before), after: rankingOf(after), moves };
}
