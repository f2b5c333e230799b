/**
 * Experiments of a website: created, listed, stopped and deleted through the admin API, kept in the
 * store (so every replica assigns alike), and consulted by every search and recommendation request that
 * names a customer (docs/experiments.md).
 *
 * Replicas: the store refuses a second experiment of a kind that is not stopped (a partial unique
 * index), whichever replica asks. Each process keeps the experiments not stopped in memory, updated at
 * once by its own writes and reloaded from the store every poll interval (as settings are), so an
 * experiment created or stopped through one replica is in force on all of them within that interval;
 * assignment itself needs nothing stored (a hash of the experiment and customer ids, assignment.ts).
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { WebsiteSettings } from '../config.js';
import type { ExperimentRequest, Experiment } from '../contract/schemas.js';
import { MAX_EXPERIMENTS_PER_WEBSITE } from '../contract/limits.js';
import { checkAgainst } from '../contract/validate.js';
import { isStorableText } from '../contract/formats.js';
import { AisleError, fieldError, fieldErrorParts, isAisleError, messageOf } from '../errors.js';
import { resolveMethod, TacticLabels, type TacticKey } from '../recommend/methods.js';
import { checkGivenSettings, type GivenSettings } from '../search/relevance-settings.js';
import { checkSettingsDepth, mergePatch } from '../settings/website-settings.js';
import type { ExperimentKind, ExperimentRecord, StoredVariant, Store } from '../store/store.js';
import { assignVariant } from './assignment.js';
import { IntervalPoller, type PollOutcomes } from '../util/interval-poller.js';

/** The variant name of an interleaved response (both rankings in one list); no variant may take it. */
export const INTERLEAVED = 'interleaved';

/** What the service needs of the engine. */
export interface ExperimentServiceOptions extends PollOutcomes {
  store: Store;
  now?: () => number;
  /** The website's settings in force, as set: the base a search variant's settings merge over. */
  settingsOf: (websiteId: string) => WebsiteSettings;
  /**
   * Validates settings as a settings PATCH would before storing them (throws `SETTINGS_INVALID` naming
   * the key); returns them as validated.
   */
  checkSettings: (websiteId: string, settings: unknown) => WebsiteSettings;
  /** Reports a failure nobody waits for (a variant's settings that no longer merge). */
  report: (error: unknown, websiteId?: string) => void;
}

/** The experiment and variant a request is served by. */
export interface Assignment {
  experiment: ExperimentRecord;
  /** The variant's index in `experiment.variants`, or {@link INTERLEAVED} (every response of an interleaving experiment). */
  variant: number | typeof INTERLEAVED;
}

/** Settings keys a variant may not override: the catalog's structure, not a runtime setting. */
const NOT_RUNTIME = ['fields'] as const;
/**
 * Settings keys no search reads — what the website does with events, browsers and recommendations: a
 * search variant "varying" one changed nothing its shoppers were served, and the report compared two
 * identical configurations as if they differed.
 */
const NOT_READ_BY_SEARCH = ['cors', 'attributionWindowDays', 'currency', 'eventRetentionDays', 'retailMedia', 'retailBoost', 'useStyleIdForVisualSimilarity'] as const;

/** Tactic keys by their labels (`slots[].tacticLabel`). */
const TACTIC_BY_LABEL: ReadonlyMap<string, TacticKey> = new Map(Object.entries(TacticLabels).map(([key, label]) => [label, key as TacticKey]));

function bad(field: string, problem: string): never {
  throw fieldError('EXPERIMENT_BAD_REQUEST', field, problem);
}

/** ISO 8601 of a time in ms. */
const iso = (ms: number): string => new Date(ms).toISOString();

/** An experiment's status at `now`: scheduled before `from`, stopped once stopped or past `until`. */
export function experimentStatus(e: ExperimentRecord, now: number): 'scheduled' | 'running' | 'stopped' {
  if (e.stoppedAt !== null || (e.until !== null && now >= e.until)) return 'stopped';
  return now < (e.from ?? e.createdAt) ? 'scheduled' : 'running';
}

/** The wire fields every form of an experiment has (listed, and reported). */
export function experimentFields(e: ExperimentRecord, now: number): Omit<Experiment, 'variants'> {
  const end = e.stoppedAt !== null && (e.until === null || e.stoppedAt < e.until) ? e.stoppedAt : e.until;
  return {
    id: e.id, name: e.name, kind: e.kind, method: e.method, status: experimentStatus(e, now), from: iso(e.from ?? e.createdAt),
    ...(end !== null && { until: iso(end) }), createdAt: iso(e.createdAt),
  };
}

/** An experiment as listed. */
export function experimentInfo(e: ExperimentRecord, now: number): Experiment {
  return { ...experimentFields(e, now), variants: e.variants.map((v) => ({ ...v })) };
}

/**
 * Checks an experiment body against the contract's `ExperimentRequest` schema and the rules a schema
 * cannot state; `checkSettings` validates a search variant's settings merged over the website's.
 * Throws `EXPERIMENT_BAD_REQUEST` naming the field. Pure apart from `checkSettings`.
 */
export function validateExperiment(
  body: unknown, now: number, checkSettings: (settings: unknown) => void,
): Omit<ExperimentRecord, 'websiteId' | 'id' | 'createdAt' | 'stoppedAt'> {
  const b = checkAgainst<ExperimentRequest>('ExperimentRequest', body, bad, { self: '(body)' });
  const method = b.method ?? 'ab';
  if (method === 'interleaving') {
    if (b.kind !== 'search') bad('method', 'interleaving compares two search rankings: kind must be "search"');
    if (b.variants.length !== 2) bad('variants', 'an interleaving experiment has exactly two variants');
  }
  const names = new Set<string>();
  const variants = b.variants.map((v, i): StoredVariant => {
    const at = `variants[${i}]`;
    if (v.name === INTERLEAVED) bad(`${at}.name`, `"${INTERLEAVED}" is reserved for interleaved responses`);
    if (names.has(v.name)) bad(`${at}.name`, `"${v.name}" is the name of another variant`);
    names.add(v.name);
    const variant: StoredVariant = { name: v.name, weight: v.weight ?? 1 };
    if (i === 0 && (v.settings !== undefined || v.recommendations !== undefined)) {
      bad(at, 'the first variant is the control (the website\'s current configuration): it carries no settings or recommendations');
    }
    if (v.settings !== undefined) {
      if (b.kind !== 'search') bad(`${at}.settings`, 'only search experiments vary settings; a recommendations variant names cascades');
      for (const key of NOT_RUNTIME) if (Object.hasOwn(v.settings, key)) bad(`${at}.settings.${key}`, 'is not a runtime setting (it shapes the stored catalog); an experiment cannot vary it');
      for (const key of NOT_READ_BY_SEARCH) {
        if (Object.hasOwn(v.settings, key)) bad(`${at}.settings.${key}`, 'is read by no search (it governs events, browsers or recommendations): a search variant varying it would serve its shoppers as the control');
      }
      const settings = v.settings;
      // A settings check's refusal, as the experiment's refusal of this variant's settings: the field the
      // check names, under this variant, with the check's own words (the message named the path twice).
      const asVariant = (check: () => void, context: string): void => {
        try {
          check();
        } catch (err) {
          if (!isAisleError(err) || err.code !== 'SETTINGS_INVALID') throw err;
          const parts = fieldErrorParts(err);
          const within = context === '' ? '' : ` (${context})`;
          if (parts === undefined || parts.key === '') bad(`${at}.settings`, `${err.message}${within}`);
          const { key, problem } = parts;
          const field = key.startsWith(`${at}.`) ? key : `${at}.${key.startsWith('settings') ? key : `settings.${key}`}`;
          bad(field, `${problem}${within}`);
        }
      };
      // What the settings API refuses as given (a weight on a field never searched, a synonym without a
      // word, …), a variant refuses too: its shoppers would be served as the control's.
      asVariant(() => checkGivenSettings(settings as GivenSettings, `${at}.settings`, 'SETTINGS_INVALID'), '');
      asVariant(() => {
        checkSettingsDepth(settings);
        checkSettings(settings);
      }, 'merged over the website\'s settings');
      variant.settings = settings;
    }
    if (v.recommendations !== undefined) {
      if (b.kind !== 'recommendations') bad(`${at}.recommendations`, 'only recommendations experiments vary cascades; a search variant overrides settings');
      const cascades: Record<string, { tactics: string[] }> = {};
      for (const [segment, { tactics }] of Object.entries(v.recommendations)) {
        let name: string;
        try {
          name = resolveMethod(segment).name;
        } catch {
          return bad(`${at}.recommendations.${segment}`, 'is not a recommendation method of this interface');
        }
        if (cascades[name] !== undefined) bad(`${at}.recommendations.${segment}`, `names method ${name} a second time`);
        tactics.forEach((label, k) => {
          if (!TACTIC_BY_LABEL.has(label)) bad(`${at}.recommendations.${segment}.tactics[${k}]`, `"${label}" is not a tactic label (known: ${[...TACTIC_BY_LABEL.keys()].join(', ')})`);
        });
        if (new Set(tactics).size !== tactics.length) bad(`${at}.recommendations.${segment}.tactics`, 'names a tactic twice');
        cascades[name] = { tactics: [...tactics] };
      }
      variant.recommendations = cascades;
    }
    return variant;
  });
  // A `from` already past starts the experiment at its creation (null: from `createdAt`): nobody was
  // assigned before it, and the answer and the report said assignment began at the past time.
  const requestedFrom = b.from === undefined ? null : Date.parse(b.from);
  const from = requestedFrom !== null && requestedFrom > now ? requestedFrom : null;
  const until = b.until === undefined ? null : Date.parse(b.until);
  if (until !== null) {
    if (until <= now) bad('until', 'must be in the future');
    if (until <= (from ?? now)) bad('until', 'must be after from');
  }
  return { kind: b.kind, name: b.name, method, variants, from, until };
}

/** See the module comment. */
export class ExperimentService {
  /** The experiments not stopped, per website (at most one per kind). */
  private active = new Map<string, ExperimentRecord[]>();
  /** Search variants' settings merged over the settings in force, per settings object (a settings change starts afresh). */
  private merged = new WeakMap<WebsiteSettings, Map<string, WebsiteSettings | null>>();
  private readonly poller = new IntervalPoller({
    poll: () => this.poll(), recovered: () => this.options.recovered(), report: (err) => this.options.pollFailed(err),
  });
  private readonly now: () => number;

  constructor(private readonly options: ExperimentServiceOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Creates an experiment (`EXPERIMENT_BAD_REQUEST`, `EXPERIMENT_CONFLICT`, `LIMIT_EXCEEDED`). */
  async create(websiteId: string, body: unknown): Promise<Experiment> {
    const now = this.now();
    const definition = validateExperiment(body, now, (settings) => this.options.checkSettings(websiteId, mergePatch(this.options.settingsOf(websiteId), settings)));
    const existing = await this.options.store.listExperiments(websiteId);
    if (existing.length >= MAX_EXPERIMENTS_PER_WEBSITE) {
      throw new AisleError('LIMIT_EXCEEDED', `website "${websiteId}" already has ${MAX_EXPERIMENTS_PER_WEBSITE} experiments; delete stopped ones first`);
    }
    const record: ExperimentRecord = { websiteId, id: `exp_${randomBytes(8).toString('hex')}`, ...definition, createdAt: now, stoppedAt: null };
    if (!(await this.options.store.createExperiment(record, now))) {
      const other = (await this.options.store.listExperiments(websiteId)).find((e) => e.kind === record.kind && e.stoppedAt === null);
      throw new AisleError('EXPERIMENT_CONFLICT', messageOf('EXPERIMENT_CONFLICT', { websiteId, kind: record.kind, id: other?.id ?? '?' }));
    }
    this.take(websiteId, [...(this.active.get(websiteId) ?? []).filter((e) => e.kind !== record.kind), record]);
    return experimentInfo(record, now);
  }

  /** The website's experiments, oldest first. */
  async list(websiteId: string): Promise<Experiment[]> {
    const now = this.now();
    return (await this.options.store.listExperiments(websiteId)).map((e) => experimentInfo(e, now));
  }

  /** One experiment as stored (`EXPERIMENT_NOT_FOUND`). */
  async get(websiteId: string, id: string): Promise<ExperimentRecord> {
    const found = (await this.options.store.listExperiments(websiteId)).find((e) => e.id === id);
    if (found === undefined) throw new AisleError('EXPERIMENT_NOT_FOUND', messageOf('EXPERIMENT_NOT_FOUND', { websiteId, id }));
    return found;
  }

  /**
   * `EXPERIMENT_NOT_FOUND` for an id a SQL store cannot hold: ids are aisle's own (`exp_<hex>`), so such
   * an id names none, and PostgreSQL failed on it (503, "the store failed").
   */
  private requireStorableId(websiteId: string, id: string): void {
    if (!isStorableText(id)) throw new AisleError('EXPERIMENT_NOT_FOUND', messageOf('EXPERIMENT_NOT_FOUND', { websiteId, id }));
  }

  /** Stops an experiment; stopping a stopped one changes nothing and answers it as it is (a retry is safe). */
  async stop(websiteId: string, id: string): Promise<Experiment> {
    const now = this.now();
    this.requireStorableId(websiteId, id);
    const stopped = await this.options.store.stopExperiment(websiteId, id, now);
    if (stopped === undefined) throw new AisleError('EXPERIMENT_NOT_FOUND', messageOf('EXPERIMENT_NOT_FOUND', { websiteId, id }));
    this.take(websiteId, (this.active.get(websiteId) ?? []).filter((e) => e.id !== id));
    return experimentInfo(stopped, now);
  }

  /** Deletes a stopped experiment (`EXPERIMENT_RUNNING` while it is not stopped, `EXPERIMENT_NOT_FOUND`). Its roll-ups stay until retention. */
  async delete(websiteId: string, id: string): Promise<void> {
    this.requireStorableId(websiteId, id);
    if (await this.options.store.deleteExperiment(websiteId, id)) return;
    const found = await this.get(websiteId, id);
    if (found.stoppedAt === null) throw new AisleError('EXPERIMENT_RUNNING', messageOf('EXPERIMENT_RUNNING', { id }));
    // Deleted meanwhile by another replica.
    throw new AisleError('EXPERIMENT_NOT_FOUND', messageOf('EXPERIMENT_NOT_FOUND', { websiteId, id }));
  }

  /**
   * The experiment and variant that serve a request of `kind` for `customerId`: none without a
   * customer id, or outside the running experiment's [from, until).
   */
  assign(websiteId: string, kind: ExperimentKind, customerId: string | undefined): Assignment | undefined {
    // A NUL cannot be stored in PostgreSQL text (the customer's roll-up key): such an id is not counted.
    if (!customerId || customerId.includes('\u0000')) return undefined;
    const experiment = this.active.get(websiteId)?.find((e) => e.kind === kind);
    if (experiment === undefined || experimentStatus(experiment, this.now()) !== 'running') return undefined;
    if (experiment.method === 'interleaving') return { experiment, variant: INTERLEAVED };
    return { experiment, variant: assignVariant(experiment.id, customerId, experiment.variants.map((v) => v.weight)) };
  }

  /**
   * The settings a search variant runs under: its settings merged over `base` (the website's in force)
   * and validated, cached per `base`. Null when they no longer validate (the website's settings
   * changed since the experiment began): the caller serves the control, and the failure is reported.
   */
  variantSettings(websiteId: string, experiment: ExperimentRecord, variant: number, base: WebsiteSettings): WebsiteSettings | null {
    const patch = experiment.variants[variant]?.settings;
    if (patch === undefined) return base;
    let cache = this.merged.get(base);
    if (cache === undefined) this.merged.set(base, (cache = new Map()));
    const key = `${experiment.id}/${variant}`;
    let settings = cache.get(key);
    if (settings === undefined) {
      try {
        settings = this.options.checkSettings(websiteId, mergePatch(base, patch));
      } catch (err) {
        this.options.report(new Error(`experiment "${experiment.id}", variant "${experiment.variants[variant]!.name}": its settings no longer merge `
          + `into the website's (${(err as Error).message}); its customers get the control`), websiteId);
        settings = null;
      }
      cache.set(key, settings);
    }
    return settings;
  }

  /** The cascade a recommendation variant gives `method` (canonical spelling), or undefined: the method's own. */
  variantTactics(experiment: ExperimentRecord, variant: number, method: string): TacticKey[] | undefined {
    return experiment.variants[variant]?.recommendations?.[method]?.tactics.map((label) => TACTIC_BY_LABEL.get(label)!);
  }

  private take(websiteId: string, records: ExperimentRecord[]): void {
    if (records.length === 0) this.active.delete(websiteId);
    else this.active.set(websiteId, records);
  }

  /** Reloads the experiments not stopped (every website) from the store. */
  async poll(): Promise<void> {
    const byWebsite = new Map<string, ExperimentRecord[]>();
    for (const e of await this.options.store.activeExperiments()) {
      let list = byWebsite.get(e.websiteId);
      if (list === undefined) byWebsite.set(e.websiteId, (list = []));
      list.push(e);
    }
    this.active = byWebsite;
  }

  /** Polls every `intervalMs` (several replicas share the store); failures go to `report`. */
  startPolling(intervalMs: number): void {
    this.poller.start(intervalMs);
  }

  /** Stops polling (after the poll in progress). */
  close(): Promise<void> {
    return this.poller.close();
  }
}
