/**
 * The listener's default limits, declared once: the listener applies them and the endpoint
 * declarations (hence the OpenAPI document) quote them.
 * @module
 */
import { MAX_CART_ITEMS } from '@aisle/engine';
import type { ListenerLimits } from './context.js';

/** Default limits (each can be overridden through `ListenerOptions.limits`). */
export const DEFAULT_LIMITS: Readonly<ListenerLimits> = Object.freeze({
  maxBytes: 1024 * 1024,
  maxDepth: 32,
  maxArrayLength: 1000,
  adminMaxBytes: 1024 * 1024 * 1024,
  maxQueryItems: MAX_CART_ITEMS,
  handlerTimeoutMs: 30_000,
});

/** A byte count in the largest binary unit it is a whole number of ("1 GiB", "512 KiB", "100 bytes"). */
export function byteSize(bytes: number): string {
  for (const [unit, size] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}
