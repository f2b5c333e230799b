/**
 * The check a settings change passes before it is stored: the fields it newly pins or re-types fit the
 * products the catalog holds.
 * @module
 */
import type { Catalog } from '../catalog/index.js';
import type { WebsiteSettings } from '../config.js';
import { problemDetails, problemPath } from '../contract/errors.js';
import { MAX_REPORTED_SKIPS } from '../engine-api.js';
import { AisleError } from '../errors.js';

/**
 * Refuses (`FIELD_TYPES_CONFLICT`, 409) settings whose newly pinned or re-typed fields stored products
 * do not fit; the problem details list up to {@link MAX_REPORTED_SKIPS} of them. Pins already in force
 * are not checked again: every product loaded since fits them.
 */
export async function checkFieldTypesFit(catalog: Catalog, next: WebsiteSettings): Promise<void> {
  const before = catalog.fieldTypes ?? {};
  const changed = Object.entries(next.fields ?? {}).filter(([field, { type }]) => !Object.hasOwn(before, field) || before[field]!.type !== type);
  if (changed.length === 0) return;
  const records = await catalog.fieldMismatches(Object.fromEntries(changed), MAX_REPORTED_SKIPS);
  if (records.length === 0) return;
  const errors: Record<string, string[]> = {};
  for (const r of records) (errors[problemPath(`settings.fields.${r.field}`)] ??= []).push(`product "${r.refId}": ${r.message}; its value is ${JSON.stringify(r.value)}`);
  throw new AisleError('FIELD_TYPES_CONFLICT', `settings: ${records.length === MAX_REPORTED_SKIPS ? 'at least ' : ''}${records.length} stored product(s) do not fit the pinned field types (first: product "${records[0]!.refId}", field "${records[0]!.field}"); nothing was changed`, {
    problem: { ...problemDetails(409, errors), records },
  });
}
