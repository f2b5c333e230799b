/**
 * HTTP conditional requests (RFC 9110 §8.8.3 and §13.1.1) for resources the engine versions (website
 * settings): the engine's opaque version token travels as a strong entity tag (`ETag: "17"`), and an
 * `If-Match` header becomes the list of versions a write may proceed from. The engine compares and sets;
 * this module only translates between the header and the token.
 * @module
 */

/** The strong entity tag of an engine version token (`17` → `"17"`). */
export function entityTag(version: string): string {
  return `"${version}"`;
}

/** One entity tag of a list: optional weakness prefix, then a quoted string of etagc characters. */
const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"$/;

/**
 * The versions an `If-Match` header allows a write to proceed from, or undefined for no condition
 * (header absent, or `*`: the settings always exist). If-Match compares strongly, so a weak tag
 * (`W/"17"`) matches nothing, and neither does a member that is not an entity tag: a header that
 * names no current version answers 412, never a write made on a condition the server misread.
 */
export function ifMatchVersions(header: string | readonly string[] | undefined): readonly string[] | undefined {
  if (header === undefined) return undefined;
  const members = (typeof header === 'string' ? [header] : header).flatMap((line) => line.split(',')).map((m) => m.trim()).filter((m) => m !== '');
  if (members.length === 1 && members[0] === '*') return undefined;
  const versions: string[] = [];
  for (const member of members) {
    const match = ENTITY_TAG.exec(member);
    if (match !== null && match[1] === undefined) versions.push(match[2]!);
  }
  return versions;
}
