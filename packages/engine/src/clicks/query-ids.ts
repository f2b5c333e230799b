/**
 * Result-list ids (`query_id` of a search page, `queryId` of a recommendation or bundle response):
 * opaque to callers, unique per response, and signed for their website. An id carries the time it was
 * issued, 96 random bits and an HMAC of both under the website's `hmacSecret`: a replica asked about an
 * id it cannot find yet can tell a list another replica answered a moment ago (its write may still be on
 * its way to the store) from an id that was never issued for this website — made up, or of another
 * website — without asking the store. Ids answered together share one signature and differ by a counter
 * appended to it ({@link QueryIdIssuer}). Pure, apart from the random part.
 *
 * The HMAC-SHA256 (@noble/hashes) and the base64url are computed in JavaScript (util/hmac-sha256.ts): the same bytes as
 * node:crypto's, without a call into C++ on every answer (decision 0062).
 * @module
 */
import { randomBytes } from 'node:crypto';
import { base64urlCodes, DIGEST_BYTES, HmacSha256Key } from '../util/hmac-sha256.js';

/**
 * `<issued ms, base 36>.<16 random base64url characters>.<11 base64url characters of HMAC-SHA256>`, then,
 * for an id issued by {@link QueryIdIssuer}, `.<counter, base 36>` (not signed).
 */
/** The patterns of an id's parts (one place for both shapes below). */
const ID_PARTS = { time: '[0-9a-z]{1,11}', random: '[A-Za-z0-9_-]{16}', signature: '[A-Za-z0-9_-]{11}', counter: '[0-9a-z]{1,3}' } as const;
/** Any id: its time, random part and signature captured. */
const QUERY_ID_SHAPE = new RegExp(`^(${ID_PARTS.time})\\.(${ID_PARTS.random})\\.(${ID_PARTS.signature})(?:\\.${ID_PARTS.counter})?$`);

/** Bytes of an id's random part. */
const RANDOM_BYTES = 12;
/** Random bytes drawn {@link RANDOM_BYTES} at a time (one `randomBytes` call per 256 ids: a call costs microseconds, on every answer). */
const POOL_IDS = 256;
let pool = randomBytes(RANDOM_BYTES * POOL_IDS);
let drawn = 0;

/** Most secrets (and websites) whose keys and ids signed ahead are kept: one per website; beyond, the table starts again. */
const MAX_KEPT_WEBSITES = 1024;

/** The prepared key of each secret (made once: two of SHA-256's blocks compressed). */
const keys = new Map<string, HmacSha256Key>();
/** The UTF-8 bytes of each website id signed for (the start of every message signed for it). */
const websiteBytes = new Map<string, Buffer>();
/** The MAC being made. */
const mac = new Uint8Array(DIGEST_BYTES);
/** The signature's characters: 11 of base64url (66 bits, from the MAC's first 9 bytes). */
const SIGNATURE_CHARS = 11;
const SIGNATURE_BYTES = 9;
const DOT = 0x2e;

/**
 * The id being made or checked, as character codes (all ASCII): its body (time, `.`, random part), then
 * `.` and its signature. Made into a string in one piece: an id is a flat string from the start (its
 * map key, its JSON and its copy to the store's thread never flatten one made of parts).
 */
const idCodes: number[] = [];
/** The message signed for an id: its website id's UTF-8 bytes, a zero byte, then its body's characters. */
let message = new Uint8Array(128);

/** The last time part written, and its time (ids signed together share it: `toString(36)` once). */
let lastTime = -1;
let lastTimeText = '0';

/** An id's time part: its ms since the epoch in base 36. */
function timeText(now: number): string {
  const ms = Math.max(0, Math.floor(now));
  if (ms !== lastTime) {
    lastTime = ms;
    lastTimeText = ms.toString(36);
  }
  return lastTimeText;
}

/**
 * Writes the signature of the body in `idCodes[0 .. bodyLength)` for a website (64 bits of HMAC-SHA256
 * over `<website id>\0<body>` with its secret, in base64url) into `idCodes` after it and a `.`; returns
 * where the id ends.
 */
function writeSignature(secret: string, websiteId: string, bodyLength: number): number {
  let key = keys.get(secret);
  let site = websiteBytes.get(websiteId);
  if (key === undefined || site === undefined) {
    // Secrets and websites are few (one each per website); a config replaced many times only rebuilds the maps.
    if (keys.size >= MAX_KEPT_WEBSITES || websiteBytes.size >= MAX_KEPT_WEBSITES) {
      keys.clear();
      websiteBytes.clear();
    }
    if (key === undefined) keys.set(secret, (key = new HmacSha256Key(Buffer.from(secret, 'utf8'))));
    if (site === undefined) websiteBytes.set(websiteId, (site = Buffer.from(websiteId, 'utf8')));
  }
  const length = site.length + 1 + bodyLength;
  if (message.length < length) message = new Uint8Array(2 * length);
  message.set(site);
  message[site.length] = 0;
  for (let i = 0, at = site.length + 1; i < bodyLength; i++, at++) message[at] = idCodes[i]!;
  key.signBytes(message, mac, 0, length);
  idCodes[bodyLength] = DOT;
  // The 9 bytes make 12 base64url characters; the signature keeps the first 11.
  base64urlCodes(mac, 0, SIGNATURE_BYTES, idCodes, bodyLength + 1);
  return bodyLength + 1 + SIGNATURE_CHARS;
}

/** A new id of `websiteId`, issued at `now` (ms since the epoch), signed with the website's secret. */
export function newQueryId(now: number, websiteId: string, secret: string): string {
  if (drawn === POOL_IDS) {
    pool = randomBytes(RANDOM_BYTES * POOL_IDS);
    drawn = 0;
  }
  const time = timeText(now);
  let n = 0;
  for (; n < time.length; n++) idCodes[n] = time.charCodeAt(n);
  idCodes[n++] = DOT;
  n = base64urlCodes(pool, RANDOM_BYTES * drawn, RANDOM_BYTES * ++drawn, idCodes, n);
  idCodes.length = writeSignature(secret, websiteId, n);
  return String.fromCharCode.apply(null, idCodes);
}

/** Longest a signature serves answers: an id's time is at most this much before its answer's. */
export const MAX_SIGNATURE_AGE_MS = 100;
/** Most ids under one signature (their counters: 1 to 3 base-36 characters). */
export const MAX_IDS_PER_SIGNATURE = 4_096;

/** The signed id a website's answers share, and the next counter to append. */
interface Signed {
  secret: string;
  /** Its time (ms since the epoch). */
  at: number;
  /** Its characters (time, random part, signature) and a `.`, as codes. */
  codes: number[];
  /** The next counter. */
  next: number;
  /** Its number among the issuer's signatures. */
  serial: number;
}

/**
 * Result-list ids issued under one signature at a time: an answer takes its website's signed id made at
 * most {@link MAX_SIGNATURE_AGE_MS} before it, with `.` and a counter of its own (base 36) appended,
 * or signs a new one, stamped now. Why: an id's signature is what lets a replica tell an id issued for
 * its website from a made-up one without the store (see the module comment), and it costs ~1 µs in a
 * loop but ~3–12 µs in place, after a search's matching or node:http's work has pushed the hash's code and
 * data out of the caches (decisions 0067, 0081); a busy website now pays it once per
 * {@link MAX_SIGNATURE_AGE_MS}, a quiet one once per answer as before. The counter is not signed: an id
 * with another counter than was issued passes the signature check and is then looked up, and found
 * missing, like an id of the website that expired (it names no list; an id is not a credential).
 * Each id is unique: the signed part carries 96 random bits, the counter differs within it.
 */
export class QueryIdIssuer {
  private readonly byWebsite = new Map<string, Signed>();
  /** Signatures made so far: each new one gets the next number ({@link QueryIdIssuer.lastSignature}). */
  private signatures = 0;
  /** The signature of the last id issued, as a number unique within this issuer. */
  lastSignature = 0;
  /** The counter of the last id issued. */
  lastCounter = 0;

  /** An id of `websiteId` for an answer at `now`, signed with the website's secret (see the class doc). */
  issue(now: number, websiteId: string, secret: string): string {
    let kept = this.byWebsite.get(websiteId);
    if (kept === undefined || now < kept.at || now - kept.at > MAX_SIGNATURE_AGE_MS || kept.next >= MAX_IDS_PER_SIGNATURE || kept.secret !== secret) {
      // Websites are few; a process serving many in turn only signs theirs again.
      if (kept === undefined && this.byWebsite.size >= MAX_KEPT_WEBSITES) this.byWebsite.clear();
      const signed = newQueryId(now, websiteId, secret);
      const codes: number[] = [];
      for (let i = 0; i < signed.length; i++) codes.push(signed.charCodeAt(i));
      codes.push(DOT);
      this.byWebsite.set(websiteId, (kept = { secret, at: now, codes, next: 0, serial: ++this.signatures }));
    }
    const { codes } = kept;
    const base = codes.length;
    const counter = kept.next++;
    this.lastSignature = kept.serial;
    this.lastCounter = counter;
    // Base 36, most significant digit first (`toString(36)` would make a string to copy from).
    const digits = counter < 36 ? 1 : counter < 1_296 ? 2 : 3;
    for (let d = digits - 1, n = counter; d >= 0; d--, n = Math.floor(n / 36)) codes[base + d] = BASE36_CODES[n % 36]!;
    const id = String.fromCharCode.apply(null, codes);
    codes.length = base;
    return id;
  }
}

/** An id issued by {@link QueryIdIssuer}: its signed part with the `.`, then its counter. */
const COUNTED_ID = new RegExp(`^(${ID_PARTS.time}\\.${ID_PARTS.random}\\.${ID_PARTS.signature}\\.)(${ID_PARTS.counter})$`);

/**
 * The ids that may start the span of answers holding `queryId` (see `ResultPageRecord.span`): the id
 * itself, then the ids of the same signature with the {@link MAX_SPAN} − 1 counters before its own,
 * nearest first; only the id itself for an id without a counter. Pure.
 */
export function spanStarts(queryId: string): string[] {
  const match = COUNTED_ID.exec(queryId);
  if (match === null) return [queryId];
  const counter = Number.parseInt(match[2]!, 36);
  const starts = [queryId];
  for (let c = counter - 1; c >= 0 && counter - c < MAX_SPAN; c--) starts.push(match[1]! + c.toString(36));
  return starts;
}

/**
 * Most answers one stored result list stands for (`ResultPageRecord.span`): a click on an answer is looked
 * up among at most this many ids, so the span is bounded; at 10,000 answers a second of one list, one row
 * per 64 answers instead of one per answer.
 */
export const MAX_SPAN = 64;

/** The character codes of the base-36 digits. */
const BASE36_CODES = Array.from('0123456789abcdefghijklmnopqrstuvwxyz', (c) => c.charCodeAt(0));

/**
 * The issue time an id carries (ms since the epoch), read without checking its signature: for ids already
 * checked (a stored click's list, an answer's own id); undefined for a string not shaped as an id. Pure.
 */
export function queryIdTime(queryId: string): number | undefined {
  // Read on every recommendation answer: the time part's digits only, without a match of the whole id or
  // a string made (those cost ~0.3 µs an answer).
  const dot = queryId.indexOf('.');
  if (dot < 1 || dot > 11) return undefined;
  let time = 0;
  for (let i = 0; i < dot; i++) {
    const code = queryId.charCodeAt(i);
    const digit = code >= 48 && code <= 57 ? code - 48 : code >= 97 && code <= 122 ? code - 87 : -1;
    if (digit < 0) return undefined;
    time = time * 36 + digit;
  }
  return time;
}

/**
 * When an id of `websiteId` was issued (ms since the epoch), or undefined for a string that is not an
 * id issued for that website under `secret` (comparison of the signatures in constant time is not
 * needed: an id is not a credential, and a forged one only names a list that does not exist).
 */
export function queryIdIssuedAt(queryId: string, websiteId: string, secret: string): number | undefined {
  const match = QUERY_ID_SHAPE.exec(queryId);
  if (match === null) return undefined;
  const bodyLength = match[1]!.length + 1 + match[2]!.length;
  for (let i = 0; i < bodyLength; i++) idCodes[i] = queryId.charCodeAt(i);
  const end = writeSignature(secret, websiteId, bodyLength);
  for (let i = bodyLength + 1; i < end; i++) if (idCodes[i] !== queryId.charCodeAt(i)) return undefined;
  return Number.parseInt(match[1]!, 36);
}
