/**
 * The engine configuration (the config file's content, or `createEngine`'s options) as one JSON
 * schema: every key, its shape and its limits, so the known-keys lists are read from here. Each
 * website's `settings` is checked against the settings schema separately (config.ts), because which
 * semantic models it may name depends on the configured embedders.
 * @module
 */
import { Type, type TSchema, type SchemaOptions } from '@sinclair/typebox';

const opt = Type.Optional;
const closed = <T extends Record<string, TSchema>>(properties: T, options: SchemaOptions = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });
const name = () => Type.String({ minLength: 1 });
const names = () => Type.Array(name());
const count = () => Type.Integer({ minimum: 0 });
const tag = <const T extends string>(value: T) => Type.Literal(value);

/** The store: its `type` picks the form (ajv's `discriminator`, so the errors are those of the named form). */
const StoreSchema = Type.Unsafe<unknown>({
  type: 'object',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: [
    closed({ type: tag('embedded'), path: opt(name()) }),
    closed({
      type: tag('postgres'), url: name(), schema: opt(name()),
      pollIntervalMs: opt(Type.Integer({ minimum: 10 })), catalogSnapshotIntervalMs: opt(Type.Integer({ minimum: 100 })),
    }),
    closed({ type: tag('memory') }),
  ],
});

/** A text embedder of the host service (library use only: `embed` is a function, checked by config.ts). */
const EmbedderSchema = Type.Object({
  id: Type.String({ pattern: '^[A-Za-z0-9._-]+$' }),
  version: name(),
  dimensions: Type.Integer({ minimum: 1 }),
  embed: Type.Unknown(),
});

const WebsiteSchema = closed({
  websiteId: name(), client: name(), tokens: names(), hmacSecret: name(),
  settings: opt(Type.Unknown({ description: 'Checked against the website settings schema.' })),
});

/** The engine configuration. */
export const EngineOptionsSchema = closed({
  dataDir: opt(name()),
  store: opt(StoreSchema),
  workers: opt(count()),
  poolThreshold: opt(count()),
  embedders: opt(Type.Array(EmbedderSchema)),
  semanticRetrainDelayMs: opt(Type.Number({ minimum: 0 })),
  websites: opt(Type.Array(WebsiteSchema)),
  adminTokens: opt(names()),
  dashboard: opt(Type.Boolean()),
});
