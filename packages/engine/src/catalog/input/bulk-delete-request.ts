/**
 * The body of a bulk delete (`POST …/products/delete`): exactly one of `{refIds}` (1 to
 * `MAX_BULK_DELETE_REFIDS`) and `{scope}` (not empty). Pure: checked whole before anything is deleted.
 * @module
 */
import type { BulkDeleteRequest } from '../../contract/schemas.js';
import { checkAgainst } from '../../contract/validate.js';
import { AisleError, fieldError } from '../../errors.js';
import type { ScopeConditions } from '../../types.js';

/** A checked bulk delete: the refIds to delete, or the scope selecting them. */
export type BulkDeleteTarget = { refIds: string[] } | { scope: ScopeConditions };

/** A field error naming `path`; `$` (the body as a whole) is worded as "the body". */
function bad(path: string, problem: string): never {
  if (path !== '$') throw fieldError('CATALOG_BAD_INPUT', path, problem);
  throw new AisleError('CATALOG_BAD_INPUT', `catalog: the body ${problem}`, { details: { key: '$' } });
}

/**
 * Checks a bulk delete body; throws `CATALOG_BAD_INPUT` naming the field (`$` for the body as a whole):
 * `{}`, both keys, an empty list or an empty scope delete nothing by mistake, so each is refused.
 */
export function parseBulkDeleteRequest(body: unknown): BulkDeleteTarget {
  const request = checkAgainst<BulkDeleteRequest>('BulkDeleteRequest', body, bad, { self: '$' });
  if (request.refIds !== undefined && request.scope !== undefined) bad('$', 'takes refIds or scope, not both');
  if (request.refIds !== undefined) return { refIds: [...new Set(request.refIds)] };
  if (request.scope === undefined) bad('$', 'needs refIds (a list of refIds) or scope (the products to delete)');
  if (Object.keys(request.scope).length === 0) bad('scope', 'must name at least one field: an empty scope would select every product');
  return { scope: request.scope };
}
