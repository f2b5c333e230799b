/**
 * The replay of the stored events into the recommendation models, run in the background after the
 * start (searches need the catalogs only), retried while it fails; what readiness reports of it.
 * @module
 */
import type { EngineLogger, FailureReporter } from '../background-failures.js';
import type { EventService } from '../events/event-service.js';
import type { ModelCheckpointer } from '../recommend/model-checkpointer.js';
import type { RecommendationModels } from '../recommend/recommendation-models.js';

/** First wait before a failed replay of the stored events goes on (ms); doubled per failure up to {@link REPLAY_RETRY_MAX_MS}. */
const REPLAY_RETRY_MS = 1_000;
/** Longest wait between two attempts of a failing replay (ms). */
const REPLAY_RETRY_MAX_MS = 30_000;
/** The readiness reason while the stored events are replayed. */
const REPLAYING = 'the stored events are being replayed into the recommendation models';

/** What the replay feeds and reports to. */
export interface EventReplayParts {
  events: EventService;
  checkpoints: ModelCheckpointer | undefined;
  reporter: FailureReporter;
  logger: EngineLogger | undefined;
  /** The websites' models, by website id (those of the websites open when the replay ends are checkpointed). */
  models: () => Iterable<readonly [string, RecommendationModels]>;
  /** True once the engine is closed: no retry is scheduled then. */
  closed: () => boolean;
}

/** The models of the websites in `only`, by website id. */
function* modelsOf(all: Iterable<readonly [string, RecommendationModels]>, only: ReadonlySet<string>): Iterable<readonly [string, RecommendationModels]> {
  for (const entry of all) if (only.has(entry[0])) yield entry;
}

/**
 * Rebuilds the recommendation models from the stored events in the background (events recorded
 * meanwhile are acknowledged at once and fed to the models after the stored ones, see
 * EventService.replay). A failure (the store went away) is reported and the replay goes on from where
 * it stopped after {@link REPLAY_RETRY_MS} (doubling up to {@link REPLAY_RETRY_MAX_MS}); the engine is not
 * ready until it is over. Recommendations wait for the first attempt only: during a long store outage
 * they answer from what the models hold, rather than not at all.
 */
export class EventReplay {
  /** Why the models do not hold every stored event: the replay is running or failed; undefined once done. */
  problem: string | undefined;
  /** Settles when the first attempt is over, failed or not (recommendations and personalised searches wait for it). */
  readonly firstAttempt: Promise<void>;
  /** Whether {@link firstAttempt} has settled (an answer then goes on without waiting a turn for it). */
  firstAttemptOver = false;

  /** Starts the replay. */
  constructor(parts: EventReplayParts) {
    this.problem = REPLAYING;
    const started = performance.now();
    let retryMs = REPLAY_RETRY_MS;
    const { events, checkpoints, reporter, logger } = parts;
    const attempt = (): Promise<void> => events.replay(checkpoints?.held()).then(() => {
      if (this.problem !== REPLAYING) reporter.recovered('event-sink');
      this.problem = undefined;
      const ms = Math.round(performance.now() - started);
      logger?.info({ ms, fromCheckpoints: Object.fromEntries(checkpoints?.held() ?? []) }, `aisle: stored events replayed in ${ms} ms`);
      // The websites whose stored events were replayed: a website added later has not had its earlier
      // events (if any), so a checkpoint of its models would make the next start skip them.
      const replayed = new Set([...parts.models()].map(([websiteId]) => websiteId));
      checkpoints?.start(events, () => modelsOf(parts.models(), replayed));
    }, (err: unknown) => {
      this.problem = `the replay of the stored events failed (retried in ${retryMs / 1000} s): ${err instanceof Error ? err.message : String(err)}`;
      reporter.report('event-sink', err, undefined, 'replaying the stored events');
      if (parts.closed()) return;
      const timer = setTimeout(() => { if (!parts.closed()) void attempt(); }, retryMs);
      timer.unref();
      retryMs = Math.min(2 * retryMs, REPLAY_RETRY_MAX_MS);
    });
    this.firstAttempt = attempt().finally(() => { this.firstAttemptOver = true; });
  }
}
