/**
 * `@aisle/http-adapter/internal`: the adapter's inner pieces that the benchmarks (packages/bench)
 * measure, imported statically so a rename is a type error there. No stability promise.
 * @module
 */
export { serialize } from './codecs.js';
export { DEMO_TRAFFIC_SESSIONS, demoEngineOptions, demoIdentity, seedDemo } from './demo.js';
