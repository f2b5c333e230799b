/**
 * Checkpoints of a website's recommendation models: the state the stored events built (model-state.ts)
 * with the sequence number of the last stored event it holds, so a start loads it and replays only the
 * events stored after it, instead of every event ever stored (readiness after a restart grew by ~22 s
 * per million stored views; decision 0034).
 *
 * The bytes: a `util/binary-sections.ts` container with the magic `AISLEMC1` and the header
 * `{ format, websiteId, seq }`, kept as the file `catalogs/<websiteId>.aislemodels` in the data directory
 * (embedded store) or in the store replicas share (model-checkpointer.ts, decision 0038). Written atomically and durably
 * (temporary file flushed, renamed, directory flushed): a crash leaves the previous checkpoint whole.
 * A file of another format, website or tuning is not used (the events are replayed in full instead).
 * @module
 */
import path from 'node:path';
import { decodeSections, encodeSectionsSteps } from '../util/binary-sections.js';
import { writeFileDurably } from '../util/durable-file.js';
import { ModelState } from './model-state.js';
import type { RecommendationModels } from './recommendation-models.js';

const MAGIC = 'AISLEMC1';
/** The layout version of the saved state; a file of another one is not loaded. */
export const MODEL_CHECKPOINT_FORMAT = 2;

/** A decoded checkpoint. */
export interface ModelCheckpoint {
  websiteId: string;
  /** The last stored event (store sequence number) the state holds, with every event before it. */
  seq: number;
  state: ModelState;
}

interface Header {
  format: number;
  websiteId: string;
  seq: number;
  values: Record<string, unknown>;
}

/** The checkpoint file of `websiteId` in the data directory `dataDir`. */
export function modelCheckpointPath(dataDir: string, websiteId: string): string {
  return path.join(dataDir, 'catalogs', `${encodeURIComponent(websiteId)}.aislemodels`);
}

/**
 * The checkpoint's bytes: `models`' state, holding the stored events up to `seq`. A copy: call it where
 * no event can be applied meanwhile (EventService.atQuietPoint).
 */
export function encodeModelCheckpoint(websiteId: string, models: RecommendationModels, seq: number): Buffer {
  const steps = encodeModelCheckpointSteps(websiteId, models, seq);
  let next = steps.next();
  while (!next.done) next = steps.next();
  return next.value;
}

/**
 * {@link encodeModelCheckpoint} in steps (model part by part, array by array), for `runInSlices` at a
 * quiet point that applies no event until it is over (see RecommendationModels.saveStateSteps): a big
 * website's models (tens of MB) held the event loop for ~90 ms in one go.
 */
export function* encodeModelCheckpointSteps(
  websiteId: string, models: RecommendationModels, seq: number, extra?: (state: ModelState) => void,
): Generator<void, Buffer, void> {
  const state = new ModelState();
  yield* models.saveStateSteps(state);
  // Other learned state of the website rides along in the same file (the engine's click learning:
  // learning/click-learner.ts), under names of its own.
  extra?.(state);
  const header: Header = { format: MODEL_CHECKPOINT_FORMAT, websiteId, seq, values: state.values };
  return yield* encodeSectionsSteps(MAGIC, header, state.arrays);
}

/** The checkpoint in `bytes`; throws on a damaged or foreign file, or one of another format. */
export function decodeModelCheckpoint(bytes: Uint8Array): ModelCheckpoint {
  const { header, arrays } = decodeSections(MAGIC, bytes);
  const h = header as Partial<Header>;
  if (h.format !== MODEL_CHECKPOINT_FORMAT) throw new Error(`model checkpoint of format ${String(h.format)}, expected ${MODEL_CHECKPOINT_FORMAT}`);
  if (typeof h.websiteId !== 'string' || !Number.isSafeInteger(h.seq) || h.seq! < 0 || typeof h.values !== 'object' || h.values === null) {
    throw new Error('model checkpoint with a malformed header');
  }
  return { websiteId: h.websiteId, seq: h.seq!, state: new ModelState(arrays, h.values) };
}

/** Writes checkpoint bytes to `file` atomically and durably (util/durable-file.ts). */
export function writeModelCheckpoint(file: string, bytes: Uint8Array): Promise<void> {
  return writeFileDurably(file, bytes);
}
