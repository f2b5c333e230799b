/**
 * The engine configuration (the config file's content, or `createEngine`'s options) as one JSON
 * schema: every key, its shape, its limits and its meaning; the known-keys lists are read from here
 * and the TypeScript types (`EngineOptions`, `StoreConfig`, `WebsiteConfig`) are derived from it. Each
 * website's `settings` is checked against the settings schema separately (config.ts), because which
 * semantic models it may name depends on the configured embedders.
 * @module
 */
import { Type, type Static, type TSchema, type SchemaOptions } from '@sinclair/typebox';
import type { Embedder } from '../semantic/embedder.js';
import { MAX_TIMER_MS } from './limits.js';
import type { WebsiteSettings } from './settings-schema.js';

const opt = Type.Optional;
const closed = <T extends Record<string, TSchema>>(properties: T, options: SchemaOptions = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });
const name = (options: SchemaOptions = {}) => Type.String({ minLength: 1, ...options });
const names = () => Type.Array(name());
const count = (options: SchemaOptions = {}) => Type.Integer({ minimum: 0, ...options });
const tag = <const T extends string>(value: T) => Type.Literal(value);
/** A delay or interval given to Node's timers (ms). */
const delayMs = (minimum: number, description: string) => Type.Integer({ minimum, maximum: MAX_TIMER_MS, description });

/**
 * A PostgreSQL schema name aisle accepts: one it can quote without escaping (letters, digits, `_`; not a
 * digit first; at most 63, PostgreSQL's identifier length).
 */
export const PG_SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

const STORE_FORMS = [
  closed({ type: tag('embedded'), path: opt(name({ description: 'SQLite file, relative to the data directory.' })) }),
  closed({
    type: tag('postgres'), url: name(), schema: opt(name()),
    pollIntervalMs: opt(delayMs(10, 'How often a replica reads the changes of the others (ms).')),
    catalogSnapshotIntervalMs: opt(delayMs(100, 'How often a replica tries to store a new catalog snapshot in PostgreSQL (ms, default 30 000; one replica writes).')),
  }),
  closed({ type: tag('memory') }),
] as const;

/** The store: its `type` picks the form (ajv's `discriminator`, so the errors are those of the named form). */
const StoreSchema = Type.Unsafe<Static<(typeof STORE_FORMS)[number]>>({
  type: 'object',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: STORE_FORMS,
});

/** Where durable state lives: the embedded SQLite file (default), PostgreSQL (replicas), or memory only. */
export type StoreConfig = Static<typeof StoreSchema>;

/**
 * A text embedder of the host service (library use only): checked here for its plain values, typed as
 * the component interface it is (`embed` is a function; config.ts checks it is one).
 */
const EmbedderSchema = Type.Unsafe<Embedder>(Type.Object({
  id: Type.String({ pattern: '^[A-Za-z0-9._-]+$' }),
  version: name(),
  dimensions: Type.Integer({ minimum: 1 }),
  embed: Type.Unknown(),
}));

const WebsiteSchema = closed({
  websiteId: name(), client: name(), tokens: names(), hmacSecret: name(),
  settings: opt(Type.Unsafe<WebsiteSettings>(Type.Unknown({ description: 'Checked against the website settings schema.' }))),
});

/** One website (tenant): its id, client shortcode, bearer tokens, HMAC secret and settings. */
export type WebsiteConfig = Static<typeof WebsiteSchema>;

/** The engine configuration. */
export const EngineOptionsSchema = closed({
  dataDir: opt(name({ description: 'Directory for the embedded store and catalog snapshots; without it and store, all state is in memory.' })),
  store: opt(StoreSchema),
  workers: opt(count({ description: 'Search worker threads; 0 runs every search inline. Default: min(2, cores).' })),
  poolThreshold: opt(count({ description: 'Catalogs with at least this many products fan out over the worker pool.' })),
  embedders: opt(Type.Array(EmbedderSchema, {
    description: 'Text embedders of the host service, for semantic search: a website names one by its id in '
      + 'settings.semanticSearch.model (library use only; a config file cannot hold code).',
  })),
  semanticRetrainDelayMs: opt(Type.Number({
    minimum: 0, maximum: MAX_TIMER_MS, description: 'Quiet time after a catalog change before the built-in semantic model retrains (ms, default 2000).',
  })),
  modelCheckpointIntervalMs: opt(delayMs(10, 'How often the recommendation models are checkpointed when events came in (ms, default 300000): a restart replays the events stored since the last checkpoint.')),
  websites: opt(Type.Array(WebsiteSchema)),
  adminTokens: opt(names()),
  dashboard: opt(Type.Boolean({ description: 'Read by the HTTP adapter: serve the built-in dashboard at / (default true; false turns it off).' })),
});

/** Options of `createEngine`: the config file's shape plus runtime options (each key described in {@link EngineOptionsSchema}). */
export type EngineOptions = Static<typeof EngineOptionsSchema>;
