/**
 * The `queryId` and `position` of click and view events, checked against the result lists the engine
 * answered: the id must name a list answered for the event's website, and that list must have held the
 * event's `refId` at `position` (1-based, in the whole result list). Pure: the lists are looked up
 * beforehand ({@link listIdsOf} says which) and passed in.
 * @module
 */
import { recommenderIdOf, tacticLabelOf } from '../recommend/slots.js';
import { isGuid } from '../contract/formats.js';
import type { ListExperiment, ResultListSource, ResultPageRecord } from '../store/store.js';
import { camelCaseKeys } from './event-body.js';
import { isRecord, type ErrorCollector } from './validate-common.js';

/** The result lists of one website by id, as found for a request (missing: never issued, or expired). */
export type ResultListsById = ReadonlyMap<string, ResultPageRecord>;

/** What a list held at a 1-based position, or undefined outside it. */
export function refIdAt(list: ResultPageRecord, position: number): string | undefined {
  return list.refIds[position - list.firstPosition];
}

const eventsOf = (body: Record<string, unknown>): Record<string, unknown>[] =>
  (Array.isArray(body.events) ? body.events.map((e) => (isRecord(e) ? e : {})) : []);

/**
 * The distinct string `queryId`s of a raw event body's first `limit` events (either spelling of the
 * names), for the look-up that precedes validation; none for a body that is not an object.
 */
export function listIdsOf(body: unknown, limit: number): string[] {
  if (!isRecord(body)) return [];
  const ids = new Set<string>();
  for (const e of eventsOf(camelCaseKeys(body).value).slice(0, limit)) if (typeof e.queryId === 'string') ids.add(e.queryId);
  return [...ids];
}

/**
 * Adds a failure for a `recommenderId` or `tacticId` that is not of a recommendation `list`: the
 * response's recommenderId (its method's, or the bundle call's) and a tactic id of the website (the
 * slots' ids). Taken as sent, such a click was counted under the list's method and credited to no
 * tactic, so the tactics' clicks no longer added up to the method's. Only GUIDs are checked here: an id of
 * another shape is the schema's failure, reported there once. A search page's clicks pass them
 * through (no report reads them there).
 */
function checkListIds(e: Record<string, unknown>, list: ResultPageRecord, errors: ErrorCollector, at: string): void {
  if (list.kind !== 'recommendation') return;
  if (typeof e.recommenderId === 'string' && isGuid(e.recommenderId) && e.recommenderId.toLowerCase() !== recommenderIdOf(list.websiteId, list.source)) {
    errors.add(`${at}.RecommenderId`, `The result list of QueryId was answered by ${list.source}, whose recommenderId is not this one.`);
  }
  if (typeof e.tacticId === 'string' && isGuid(e.tacticId) && tacticLabelOf(list.websiteId, e.tacticId) === undefined) {
    errors.add(`${at}.TacticId`, 'The TacticId names no tactic of this website (send the tacticId of the clicked slot).');
  }
}

/**
 * Checks the `queryId`/`position` of each event of a camel-cased body (only values of the right types:
 * the schema reports the others) and adds a failure under `<eventsKey>[i].QueryId` or `.Position`, and
 * under `.RecommenderId` or `.TacticId` for ids that are not of the list ({@link checkListIds}).
 * Returns, per event index, the source of the list its click is attributed to.
 */
export function checkListRefs(value: Record<string, unknown>, errors: ErrorCollector, eventsKey: string, lists: ResultListsById): (ResultListSource | undefined)[] {
  return eventsOf(value).map((e, i) => {
    if (typeof e.queryId !== 'string') return undefined;
    // A queryId the schema refused (blank, too long, a NUL) is reported there: "not issued" beside it says it twice.
    if (errors.errors[`${eventsKey}[${i}].QueryId`] !== undefined) return undefined;
    const list = lists.get(e.queryId);
    if (list === undefined) {
      errors.add(`${eventsKey}[${i}].QueryId`, 'The QueryId was not issued for this website, or has expired (see the result-list retention in the documentation).');
      return undefined;
    }
    // A position the schema refuses (not an integer from 1) is reported there, once.
    const position = e.position;
    if (typeof position === 'number' && Number.isSafeInteger(position) && position >= 1 && typeof e.refId === 'string' && refIdAt(list, position) !== e.refId) {
      errors.add(`${eventsKey}[${i}].Position`, `The result list of QueryId did not hold RefId "${e.refId}" at position ${position}.`);
    }
    checkListIds(e, list, errors, `${eventsKey}[${i}]`);
    const source: ResultListSource = { kind: list.kind, source: list.source, variant: list.variant };
    if (list.experiment !== undefined) source.experiment = clickedExperiment(list, typeof e.refId === 'string' ? e.refId : undefined, position);
    return source;
  });
}

/**
 * The experiment of a click on `list`: the list's, with, for an interleaved list, the variant whose
 * ranking placed the clicked item (by position, else by the refId's place in the list) as `team`.
 */
export function clickedExperiment(list: ResultPageRecord, refId: string | undefined, position: unknown): ListExperiment {
  const { teams, ...experiment } = list.experiment!;
  if (teams === undefined) return experiment;
  let index = typeof position === 'number' && Number.isSafeInteger(position) ? position - list.firstPosition : -1;
  if (refId !== undefined && list.refIds[index] !== refId) index = list.refIds.indexOf(refId);
  const team = teams[index];
  return team === undefined ? experiment : { ...experiment, team };
}
