/**
 * Whether text is valid percent-encoding: what the router asks of a path segment and the query decoder
 * of a declared parameter's name and value before reading them.
 * @module
 */

/** True when `decodeURIComponent` reads `text` (every `%` starts an escape, the bytes are UTF-8). */
export function isValidPercentEncoding(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}
