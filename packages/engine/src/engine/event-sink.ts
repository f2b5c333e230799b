/**
 * Where the event service's durable events go in the engine: purchases and views into the website's
 * recommendation models (and purchases into the learned ranking), clicks and attributed purchases into
 * the search analytics and then to the host's hook.
 * @module
 */
import type { SearchLog } from '../analytics/search-log.js';
import type { ClickOutcome } from '../events/click-attribution.js';
import type { EventSink } from '../events/event-service.js';
import type { ClickLearner } from '../learning/click-learner.js';
import type { ModelCheckpointer } from '../recommend/model-checkpointer.js';
import { tacticLabelOf } from '../recommend/slots.js';
import type { PurchaseRecord, ViewRecord } from '../types.js';
import type { WebsiteState } from './website-state.js';

/** What the events feed. */
export interface EventSinkTargets {
  sites: ReadonlyMap<string, WebsiteState>;
  checkpoints: ModelCheckpointer | undefined;
  learner: ClickLearner;
  /** The search analytics (made after the event service, which reads the same store). */
  searchLog: () => SearchLog;
  /** The host's hook for clicks and attributed purchases. */
  onClickOutcome: ((outcome: ClickOutcome) => void) | undefined;
}

/**
 * A click on a result list, or a purchased line converting one (events/click-attribution.ts): into the
 * search analytics (counted against the response's id), then to the host's hook.
 */
function recordClickOutcome(targets: EventSinkTargets, outcome: ClickOutcome): void {
  const key = outcome.query ?? outcome.method ?? '';
  // The reports count a recommendation's clicks per tactic label; a click names its tactic by id.
  const tactic = outcome.kind === 'recommendation' && outcome.tacticId !== undefined ? tacticLabelOf(outcome.websiteId, outcome.tacticId) : undefined;
  const target = {
    websiteId: outcome.websiteId, at: outcome.at, kind: outcome.kind, key,
    ...(outcome.queryId !== undefined && { queryId: outcome.queryId }), ...(tactic !== undefined && { tactic }),
    ...(outcome.experiment !== undefined && { experiment: outcome.experiment }),
  };
  const searchLog = targets.searchLog();
  if (outcome.type === 'purchase') searchLog.recordConversion({ ...target, revenue: outcome.revenue ?? 0 });
  else searchLog.recordClickOutcome({ ...target, type: outcome.type, ...(outcome.position !== undefined && { position: outcome.position }) });
  targets.onClickOutcome?.(outcome);
}

/** The event service's sink over the engine's parts. */
export function eventSinkOf(targets: EventSinkTargets): EventSink {
  const { sites, checkpoints, learner } = targets;
  return {
    onPurchase: (purchase: PurchaseRecord) => {
      checkpoints?.eventFed();
      sites.get(purchase.websiteId)?.models.applyPurchase(purchase);
      learner.onPurchase(purchase);
    },
    onView: (view: ViewRecord) => {
      checkpoints?.eventFed();
      sites.get(view.websiteId)?.models.applyView(view);
    },
    onClickOutcome: (outcome: ClickOutcome) => recordClickOutcome(targets, outcome),
  };
}
