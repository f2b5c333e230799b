/**
 * The string formats of the events wire, declared once: the schemas name them (`format: 'guid'`), the
 * contract's ajv instances check them, and the message of a failure says what is expected.
 * @module
 */
import { DECIMAL_STRING_PATTERN, MAX_DECIMAL, MAX_URL_LENGTH } from './limits.js';

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Whether `s` is a GUID as the `guid` format takes it (either case). */
export function isGuid(s: string): boolean {
  return GUID.test(s);
}
// eslint-disable-next-line no-control-regex
const BAD_CHARS = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)$/;
/**
 * Whether a SQL store can hold and look up `s`: no NUL (PostgreSQL's text refuses it) and no unpaired
 * surrogate (not UTF-8, which a URL's percent-encoding or a JSON body could not spell either). Stored
 * text is checked with it (`clean-text`, and a product's refId: catalog/input/product-limits.ts), so a
 * look-up of text that fails it names nothing stored, and answers "not found" without asking the store
 * (which would fail on it).
 */
export function isStorableText(s: string): boolean {
  return !BAD_CHARS.test(s);
}

/** What {@link isStorableText} asks of a text, as messages word it. */
export const CLEAN_TEXT_EXPECTED = 'must not contain NUL characters or unpaired surrogates';

/** Longest date-time text read (longer text is not a date-time: the parse stays cheap). */
const MAX_DATE_TIME_LENGTH = 64;

/**
 * The key a customer is known by. Events keep their GUIDs in lower case (the `guid` format is normalised
 * so), while the recommendation `customerId` and the search `customer_id` are free strings (the spec:
 * "obtained from the configuration interface"): a GUID-shaped id is matched in lower case wherever a
 * customer is looked up, so `7D1C…` asks for the history its events recorded as `7d1c…`; any other id is
 * taken as given. Pure; the same string back when nothing changes (no allocation on the common path).
 */
export function customerKey(id: string): string {
  return isGuid(id) ? id.toLowerCase() : id;
}

/** Days of `month` (1–12) in `year`, Gregorian (every event time is parsed: no Date object per call). */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Parses an ISO 8601 date-time (RFC 3339 profile; years 1970–9999) to ms, or undefined. The zone (`Z` or
 * an offset) is required: a zone-less time means a different instant on every sender's clock, so it is
 * refused rather than guessed (as a key's `expiresAt` is).
 */
export function parseIsoDateTime(s: string): number | undefined {
  const m = ISO_DATE_TIME.exec(s);
  if (m === null) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  if (year < 1970 || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (day < 1 || day > daysInMonth(year, month)) return undefined;
  let offsetMinutes = 0;
  const zone = m[8]!; // the pattern requires a zone
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = sign * (oh * 60 + om);
  }
  return Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000;
}

const DECIMAL_STRING = new RegExp(DECIMAL_STRING_PATTERN);

/** A format: its check and the words of a failure (completing "The X field …"). */
export interface EventFormat {
  validate: (s: string) => boolean;
  expected: string;
}

/** An absolute http(s) URL with a host, as the WHATWG URL parser reads it, or undefined. */
function httpUrl(s: string): URL | undefined {
  if (s.length > MAX_URL_LENGTH || /\s/.test(s)) return undefined;
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return undefined;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '' ? url : undefined;
}

/**
 * The formats of the contract by name (events wire and settings). `web-url` and `web-origin` keep a
 * browser from being sent to a `javascript:` or `data:` URL by a redirect, or a CORS header from
 * naming something that is not an origin.
 */
export const EVENT_FORMATS: Readonly<Record<'guid' | 'event-time' | 'clean-text' | 'display-name' | 'currency-code' | 'decimal' | 'web-url' | 'web-origin', EventFormat>> = {
  'web-url': {
    validate: (s) => httpUrl(s) !== undefined || (s.length <= MAX_URL_LENGTH && /^\/(?![/\\])\S*$/.test(s)),
    expected: 'must be an http(s) URL (https://shop.example/sale) or a path on the shop\'s own site (/sale)',
  },
  'web-origin': {
    validate: (s) => s === '*' || httpUrl(s)?.origin === s,
    expected: 'must be "*" or an origin: scheme, host and optional port, without a path (https://shop.example)',
  },
  'currency-code': { validate: (s) => /^[A-Za-z]{3}$/.test(s), expected: 'must be a 3-letter ISO 4217 currency code' },
  /** A decimal string within the events wire's range (its JSON-number form is bounded by minimum/maximum). */
  decimal: {
    validate: (s) => s.length <= 40 && DECIMAL_STRING.test(s) && Number(s) >= 0 && Number(s) <= MAX_DECIMAL,
    expected: `must be a decimal number from 0 to ${MAX_DECIMAL}`,
  },
  guid: { validate: isGuid, expected: 'must be a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)' },
  'event-time': {
    validate: (s) => s.length <= MAX_DATE_TIME_LENGTH && parseIsoDateTime(s) !== undefined,
    expected: 'must be an ISO 8601 date-time with a zone (Z or an offset such as +02:00), such as 2024-05-01T12:00:00Z (years 1970-9999)',
  },
  'clean-text': { validate: isStorableText, expected: CLEAN_TEXT_EXPECTED },
  /**
   * A name people read and that keys what is stored (an experiment's, a variant's): `clean-text` without
   * any control character either, which a dashboard or a log line would show as nothing or as a break.
   */
  'display-name': {
    validate: (s) => isStorableText(s) && !CONTROL_CHARS.test(s),
    expected: 'must not contain control characters (U+0000–U+001F, U+007F–U+009F) or unpaired surrogates',
  },
};
