/**
 * The engine's wire contract, declared once: request and response JSON schemas with their derived
 * TypeScript types, the size limits they use, the recommendation method table, and the validators
 * compiled from the schemas. The HTTP adapter derives its validation, serialisers and OpenAPI document
 * from this module; nothing outside it restates a limit, a method name or a body shape.
 * @module
 */
export * from './limits.js';
export * from './schemas.js';
export { RECOMMEND_METHODS, type RecommendMethod } from '../recommend/methods.js';
export { validatorFor, describeAjvError, describeAjvErrors, checkAgainst, type FailAt, type CheckAt, type ValidatorOptions } from './validate.js';
export { parseIsoDateTime, EVENT_FORMATS, type EventFormat } from './formats.js';
export * from './errors.js';
export * from './settings-schema.js';
export * from './query-schemas.js';
export { EngineOptionsSchema } from './config-schema.js';
