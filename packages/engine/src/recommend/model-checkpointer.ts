/**
 * When the recommendation models' checkpoints (model-checkpoint.ts) are read and written, for every
 * website of an engine whose stored events outlive it, in one of two places ({@link CheckpointPlace}):
 * - files in the data directory (the embedded store: the events and the checkpoints are this process's);
 * - the store itself, when replicas share it (PostgreSQL, `StoreSharing.checkpoints`): any replica
 *   writes one (one at a time; a replica that finds another writing, or a newer checkpoint stored, leaves
 *   it), every starting replica reads the latest (decision 0038).
 *
 * - at the start, each website's models are created from its checkpoint when there is a usable one (its
 *   format, website and tuning, and events the store still has); the replay of the stored events then
 *   skips what the checkpoints hold. An unusable checkpoint is reported (`model-checkpoint`) and that
 *   website's events are replayed in full, as without one;
 * - every {@link CHECKPOINT_INTERVAL_MS} when events were fed since the last one, and at shutdown, all
 *   websites' models are encoded at one quiet point of the event service (no event write in flight and,
 *   on a shared store, the others' events polled up to the store's end: the models hold exactly the
 *   stored events up to one sequence number), then written.
 *
 * The checkpoint's bytes are opaque here (model-checkpoint.ts encodes whatever the models save:
 * `RecommendationModels.saveStateSteps` and the parts it delegates to), so a new part of the learned
 * state is carried by both places without a change to either.
 * @module
 */
import { runInSlices } from '../catalog/build/time-slices.js';
import type { EventService } from '../events/event-service.js';
import type { SharedCheckpoints } from '../store/store.js';
import { readFileIfPresent, removeLeftoverTemps } from '../util/durable-file.js';
import {
  decodeModelCheckpoint, encodeModelCheckpointSteps, modelCheckpointPath, writeModelCheckpoint, type ModelCheckpoint,
} from './model-checkpoint.js';
import type { ModelState } from './model-state.js';
import type { RecommendationModels } from './recommendation-models.js';

/** Where a website's checkpoint bytes are kept. */
export interface CheckpointPlace {
  /** The checkpoint bytes of `websiteId` and the sequence number they say they hold, or undefined (none). */
  read(websiteId: string): Promise<Uint8Array | undefined>;
  /** Saves them; false when they were not written because another writer has (or writes) a newer one. */
  write(websiteId: string, seq: number, bytes: Uint8Array): Promise<boolean>;
  /**
   * True when the checkpoints may outlive the store (files in a data directory whose store file can be
   * replaced): a checkpoint holding events beyond the store's last is then refused. A store's own
   * checkpoints are part of it.
   */
  readonly mayOutliveStore: boolean;
}

/**
 * Checkpoint files in the data directory (`catalogs/<site>.aislemodels`, written atomically and durably).
 * Reading one (at the start, before any write of this process) also deletes the temporary files of a
 * write a crash cut short: a kill -9 during a write would otherwise leave tens of MB behind each time.
 */
export function checkpointFiles(dataDir: string): CheckpointPlace {
  return {
    read: async (websiteId) => {
      const file = modelCheckpointPath(dataDir, websiteId);
      await removeLeftoverTemps(file);
      return readFileIfPresent(file);
    },
    write: async (websiteId, _seq, bytes) => {
      await writeModelCheckpoint(modelCheckpointPath(dataDir, websiteId), bytes);
      return true;
    },
    mayOutliveStore: true,
  };
}

/** The checkpoints a shared store keeps (one per website, under the name `models/<websiteId>`). */
export function storeCheckpoints(checkpoints: SharedCheckpoints): CheckpointPlace {
  const name = (websiteId: string) => `models/${websiteId}`;
  return {
    read: async (websiteId) => (await checkpoints.read(name(websiteId)))?.bytes,
    write: async (websiteId, seq, bytes) => (await checkpoints.write(name(websiteId), seq, bytes)) === 'written',
    mayOutliveStore: false,
  };
}

/** Wall time between two periodic checkpoints (when events were fed in between). */
export const CHECKPOINT_INTERVAL_MS = 5 * 60_000;

/** Options of a {@link ModelCheckpointer}. */
export interface ModelCheckpointerOptions {
  /** Where the checkpoints are kept. */
  place: CheckpointPlace;
  /** Where failures go (an unusable checkpoint at the start, a failed write). */
  report: (error: unknown, websiteId?: string) => void;
  /** Between periodic checkpoints (default {@link CHECKPOINT_INTERVAL_MS}). */
  intervalMs?: number;
  /** Writes a website's other learned state into its checkpoint (at the same quiet point as its models). */
  saveExtra?: (websiteId: string, state: ModelState) => void;
}

/** Reads and writes the model checkpoints of one engine's websites. */
export class ModelCheckpointer {
  /** Per website, the last stored event its models were loaded with. */
  private readonly loaded = new Map<string, number>();
  /** Events fed to the models since the last checkpoint was encoded. */
  private fedSinceCheckpoint = 0;
  private timer: NodeJS.Timeout | undefined;
  /** The checkpoint being written, if any (one at a time). */
  private writing: Promise<void> | undefined;
  /** The models checkpointed (set by {@link start}: none before the replay of the stored events is over). */
  private sites: (() => Iterable<readonly [string, RecommendationModels]>) | undefined;
  private stopped = false;

  constructor(private readonly options: ModelCheckpointerOptions) {}

  /**
   * The checkpoint to create `websiteId`'s models from, or undefined (none, or unusable: reported). A
   * checkpoint holding events the store does not have (`lastStoredSeq` lower: the store was replaced)
   * is not used.
   */
  async read(websiteId: string, lastStoredSeq: () => Promise<number>): Promise<ModelCheckpoint | undefined> {
    let checkpoint: ModelCheckpoint | undefined;
    try {
      const bytes = await this.options.place.read(websiteId);
      if (bytes === undefined) return undefined;
      checkpoint = decodeModelCheckpoint(bytes);
      if (checkpoint.websiteId !== websiteId) throw new Error(`the checkpoint is website "${checkpoint.websiteId}"'s`);
      if (this.options.place.mayOutliveStore) {
        const last = await lastStoredSeq();
        if (checkpoint.seq > last) throw new Error(`the checkpoint holds events up to ${checkpoint.seq}, the store only up to ${last}`);
      }
      return checkpoint;
    } catch (err) {
      this.options.report(new Error(`the recommendation models' checkpoint is not used (the stored events are replayed in full): ${(err as Error).message}`, { cause: err }), websiteId);
      return undefined;
    }
  }

  /**
   * `websiteId`'s models, from `checkpoint` when it loads (`create` with its state), else fresh (`create`
   * without; the failure reported). Records what the replay must skip.
   */
  create(websiteId: string, checkpoint: ModelCheckpoint | undefined, create: (state?: ModelState) => RecommendationModels): RecommendationModels {
    if (checkpoint !== undefined) {
      try {
        const models = create(checkpoint.state);
        this.loaded.set(websiteId, checkpoint.seq);
        return models;
      } catch (err) {
        this.options.report(new Error(`the recommendation models' checkpoint is not used (the stored events are replayed in full): ${(err as Error).message}`, { cause: err }), websiteId);
      }
    }
    return create();
  }

  /** Per website, the last stored event its models hold from a checkpoint (for EventService.replay). */
  held(): ReadonlyMap<string, number> {
    return this.loaded;
  }

  /** An event was fed to some website's models. */
  eventFed(): void {
    this.fedSinceCheckpoint++;
  }

  /** Starts the periodic checkpoints of `sites`' models (once the replay of the stored events is over). */
  start(events: EventService, sites: () => Iterable<readonly [string, RecommendationModels]>): void {
    if (this.stopped || this.sites) return;
    this.sites = sites;
    this.timer = setInterval(() => {
      if (this.fedSinceCheckpoint === 0 || this.writing) return;
      // Failures are reported by write(); nothing else is to do with them here.
      this.write(events, sites).catch(() => undefined);
    }, this.options.intervalMs ?? CHECKPOINT_INTERVAL_MS);
    this.timer.unref();
  }

  /**
   * Stops the periodic checkpoints and writes a last one when events were fed since the last (shutdown;
   * none when the replay never ended: the models do not hold every stored event).
   */
  async stop(events: EventService): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.writing;
    // Failures are reported by write(); shutdown goes on.
    if (this.sites && this.fedSinceCheckpoint > 0) await this.write(events, this.sites).catch(() => undefined);
  }

  /**
   * Encodes every website's models at one quiet point of `events` and writes the files; each failure is
   * reported (and rejects), the previous checkpoint stays whole.
   */
  write(events: EventService, sites: () => Iterable<readonly [string, RecommendationModels]>): Promise<void> {
    const run = (async () => {
      const encoded = await events.atQuietPoint(async (lastSeq) => {
        this.fedSinceCheckpoint = 0;
        const out: { websiteId: string; bytes: Buffer }[] = [];
        // In slices: searches go on meanwhile; event writes wait until every website is encoded.
        for (const [websiteId, models] of sites()) out.push({ websiteId, bytes: await runInSlices(encodeModelCheckpointSteps(websiteId, models, lastSeq, this.options.saveExtra && ((state) => this.options.saveExtra!(websiteId, state)))) });
        return { lastSeq, out };
      });
      if (encoded === undefined) return;
      const failures = await Promise.all(encoded.out.map(async ({ websiteId, bytes }) => {
        try {
          // False: another replica's checkpoint holds as much or more (nothing to report).
          await this.options.place.write(websiteId, encoded.lastSeq, bytes);
          return undefined;
        } catch (err) {
          this.options.report(err, websiteId);
          return err;
        }
      }));
      const failed = failures.find((f) => f !== undefined);
      if (failed !== undefined) throw failed;
    })();
    // The caller gets the failure (reported above); `writing` only says whether one runs.
    this.writing = run.then(() => undefined, () => undefined).finally(() => { this.writing = undefined; });
    return run;
  }
}
