/**
 * Website settings kept in the store and shared by replicas: updates (replace or RFC 7396 merge,
 * validated, written with a compare-and-set on the store-wide version, one at a time per website in a
 * process), optionally on condition that the settings are still at a version the writer read (optimistic
 * concurrency: HTTP's `If-Match`), and polling for the settings other replicas wrote (PostgreSQL).
 * Whatever it reads or writes is handed to `apply`, which puts the settings in force for the next request.
 * @module
 */
import { createHash } from 'node:crypto';
import type { WebsiteSettings } from '../config.js';
import type { VersionedSettings } from '../engine-api.js';
import { AisleError, messageOf } from '../errors.js';
import type { Store, StoredSettings } from '../store/store.js';
import { checkSettingsDepth, checkWebsiteSettings, mergePatch, settingsWithDefaults } from './website-settings.js';
import { checkGivenSettings, type GivenSettings } from '../search/relevance-settings.js';
import { IntervalPoller, type PollOutcomes } from '../util/interval-poller.js';

/**
 * How often a replica on PostgreSQL asks the store for settings written by other replicas (one indexed
 * query for all websites): a change is applied everywhere within about this long.
 */
export const SETTINGS_POLL_MS = 1_000;
/** Attempts of a settings update that keeps losing the compare-and-set to concurrent writers. */
const SETTINGS_WRITE_ATTEMPTS = 5;

/** What the service needs of the engine. */
export interface SettingsServiceOptions extends PollOutcomes {
  store: Store;
  /** The settings of a website while the store has none (the config file's). */
  seed: (websiteId: string) => WebsiteSettings;
  /** Puts validated settings in force (called once per new version of a known website). */
  apply: (websiteId: string, settings: WebsiteSettings) => void;
  /** Whether the website exists in this engine. */
  knows: (websiteId: string) => boolean;
  /** The semantic model ids settings may name (see `checkWebsiteSettings`). */
  modelIds: () => readonly string[];
  /**
   * Refuses settings the website's stored data no longer fits (throws; nothing is written): pinned
   * field types that stored products do not fit (`FIELD_TYPES_CONFLICT`).
   */
  checkFit: (websiteId: string, next: WebsiteSettings) => Promise<void>;
  /**
   * Refuses valid settings the website cannot apply as things are (a rule boost's scope that does not
   * fit the catalog): throws `SETTINGS_INVALID` naming the setting, and nothing is written.
   */
  checkApplicable?: (websiteId: string, settings: WebsiteSettings) => void;
  /** Reports a failure nobody is waiting for (stored settings this version refuses). */
  report: (error: unknown, websiteId?: string) => void;
}

/**
 * The version token of settings (see `VersionedSettings`): stored settings are at their store-wide version
 * (`"17"`), so a token names one write on every replica; settings never written through the API (the
 * config file's) at `"0-"` and a digest of them, so a new config file changes it too.
 */
function versionToken(stored: number, seed: () => WebsiteSettings): string {
  if (stored > 0) return String(stored);
  return `0-${createHash('sha256').update(JSON.stringify(seed())).digest('base64url').slice(0, 16)}`;
}

/** The store failed while settings were read, checked or written: nothing was changed (503). */
export function storeFailure(err: unknown): AisleError {
  return new AisleError('STORE_FAILURE', `the store failed; the settings were not changed: ${(err as Error)?.message ?? String(err)}`, { cause: err });
}

function versionMismatch(websiteId: string): AisleError {
  return new AisleError('SETTINGS_VERSION_MISMATCH', messageOf('SETTINGS_VERSION_MISMATCH', { websiteId }));
}

/** See the module comment. */
export class SettingsService {
  /** Highest settings version seen (store-wide): the cursor of polling. */
  private cursor = 0;
  /** Version and settings in force per website (absent: none stored, the seed applies). */
  private readonly versions = new Map<string, { version: number; settings: WebsiteSettings }>();
  /** The update in progress per website. */
  private readonly writes = new Map<string, Promise<unknown>>();
  private readonly poller = new IntervalPoller({
    poll: () => this.poll(), recovered: () => this.options.recovered(), report: (err) => this.options.pollFailed(err),
  });

  constructor(private readonly options: SettingsServiceOptions) {}

  /** Whether settings written through the store are in force for the website (the seed no longer is). */
  hasStored(websiteId: string): boolean {
    return this.versions.has(websiteId);
  }

  /**
   * The settings in force for the website, every key with defaults filled in, and their version token. One
   * synchronous read: the two always belong together (a poll applies both at once).
   */
  current(websiteId: string): VersionedSettings {
    const inForce = this.versions.get(websiteId);
    const seed = () => this.options.seed(websiteId);
    return { settings: settingsWithDefaults(inForce?.settings ?? seed()), version: versionToken(inForce?.version ?? 0, seed) };
  }

  /**
   * Replaces the website's settings, or merges `settings` into them (RFC 7396) with `merge`. With
   * `ifVersion`, only while the stored settings are at one of these version tokens (as {@link current}
   * answers them): else `SETTINGS_VERSION_MISMATCH`, and the store's compare-and-set makes the condition
   * hold up to the write, across replicas; without it, a write that loses the compare-and-set to another
   * merges into the other's value and tries again. Throws `SETTINGS_INVALID` or `FIELD_TYPES_CONFLICT`
   * (nothing written) or `STORE_FAILURE`. Returns every key, defaults filled in, and the new version.
   */
  update(websiteId: string, settings: unknown, merge: boolean, ifVersion?: readonly string[]): Promise<VersionedSettings> {
    try {
      checkSettingsDepth(settings);
    } catch (err) {
      return Promise.reject(err);
    }
    const previous = this.writes.get(websiteId) ?? Promise.resolve();
    const run = () => this.write(websiteId, settings, merge, ifVersion);
    const update = previous.then(run, run);
    // Only the order is kept here; the outcome goes to the caller of `update`.
    const settled = update.then(() => undefined, () => undefined);
    this.writes.set(websiteId, settled);
    void settled.then(() => { if (this.writes.get(websiteId) === settled) this.writes.delete(websiteId); });
    return update;
  }

  private async write(websiteId: string, settings: unknown, merge: boolean, ifVersion: readonly string[] | undefined): Promise<VersionedSettings> {
    const { store } = this.options;
    for (let attempt = 0; attempt < SETTINGS_WRITE_ATTEMPTS; attempt++) {
      let stored: StoredSettings | undefined;
      try {
        stored = await store.getSettings(websiteId);
      } catch (err) {
        throw storeFailure(err);
      }
      const at = versionToken(stored?.version ?? 0, () => this.options.seed(websiteId));
      if (ifVersion !== undefined && !ifVersion.includes(at)) throw versionMismatch(websiteId);
      const next = await this.checked(websiteId, stored, settings, merge);
      let written: StoredSettings | undefined;
      try {
        written = await store.putSettings(websiteId, next as Record<string, unknown>, stored?.version ?? 0);
      } catch (err) {
        throw storeFailure(err);
      }
      if (written) {
        this.take(written);
        return { settings: settingsWithDefaults(next), version: String(written.version) };
      }
      // Another replica wrote after the read: the writer's condition no longer holds; without one,
      // merge into the other's value and try again.
      if (ifVersion !== undefined) throw versionMismatch(websiteId);
    }
    throw new AisleError('STORE_FAILURE', `settings of website "${websiteId}" changed concurrently ${SETTINGS_WRITE_ATTEMPTS} times; nothing was written, try again`);
  }

  /**
   * The settings a PATCH with `patch` would store, and those it would replace, without storing anything
   * (a ranking preview): the same merge over the same stored value (the seed while none is stored), the
   * same checks and errors as {@link update} with `merge`.
   */
  async preview(websiteId: string, patch: unknown): Promise<{ current: WebsiteSettings; next: WebsiteSettings }> {
    checkSettingsDepth(patch);
    let stored: StoredSettings | undefined;
    try {
      stored = await this.options.store.getSettings(websiteId);
    } catch (err) {
      throw storeFailure(err);
    }
    const next = await this.checked(websiteId, stored, patch, true);
    // The stored value passed these checks when it was written (or the config file's did at the start).
    const current = (stored?.settings ?? this.options.seed(websiteId)) as WebsiteSettings;
    return { current, next };
  }

  /** `settings` (merged into the stored value with `merge`), validated and checked against the website's data; throws as {@link update} does. */
  private async checked(websiteId: string, stored: StoredSettings | undefined, settings: unknown, merge: boolean): Promise<WebsiteSettings> {
    const base = stored?.settings ?? this.options.seed(websiteId);
    const next = checkWebsiteSettings(merge ? mergePatch(base, settings) : settings, this.options.modelIds());
    // What this request gives, not what it keeps: stored settings taken before these checks still apply.
    // The merged value passed the schema, so the given keys it holds are typed as the schema says.
    if (typeof settings === 'object' && settings !== null && !Array.isArray(settings)) checkGivenSettings(settings as GivenSettings, 'settings', 'SETTINGS_INVALID');
    await this.options.checkFit(websiteId, next);
    this.options.checkApplicable?.(websiteId, next);
    return next;
  }

  /** Applies settings read from the store when they are newer than those in force. */
  private take(row: StoredSettings): void {
    if (row.version > this.cursor) this.cursor = row.version;
    if (!this.options.knows(row.websiteId) || row.version <= (this.versions.get(row.websiteId)?.version ?? 0)) return;
    let settings: WebsiteSettings;
    try {
      settings = checkWebsiteSettings(row.settings, this.options.modelIds());
    } catch (err) {
      // Written by a replica whose version knows keys this one does not: keep the settings in force.
      this.options.report(new Error(`stored settings (version ${row.version}) are not valid here; kept the current ones: ${(err as Error).message}`), row.websiteId);
      return;
    }
    this.versions.set(row.websiteId, { version: row.version, settings });
    this.options.apply(row.websiteId, settings);
  }

  /** Applies the settings written since the last poll (at start: all of them). */
  async poll(): Promise<void> {
    for (const row of await this.options.store.settingsSince(this.cursor)) this.take(row);
  }

  /** Applies the stored settings of one website (a website added at run time). */
  async load(websiteId: string): Promise<void> {
    const stored = await this.options.store.getSettings(websiteId);
    if (stored) this.take(stored);
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
