/**
 * Identifier helpers: stable GUIDs derived from names, random GUIDs, W3C trace ids.
 * @module
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';

/** Formats 16 bytes as a lowercase GUID with RFC 4122 version and variant bits set. */
function formatGuid(bytes: Uint8Array, version: number): string {
  const b = Buffer.from(bytes.subarray(0, 16));
  b[6] = (b[6]! & 0x0f) | (version << 4);
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * A GUID that is always the same for the same parts (name-based, SHA-1, version 5 layout), so
 * recommender and tactic ids stay stable across restarts and replicas.
 */
export function stableGuid(...parts: string[]): string {
  const digest = createHash('sha1').update(parts.join('\u0000')).digest();
  return formatGuid(digest, 5);
}

/** A random (version 4) GUID. */
export function randomGuid(): string {
  return randomUUID();
}

/** A W3C traceparent value (`00-<32 hex trace id>-<16 hex span id>-01`). */
export function newTraceId(): string {
  return `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
}
