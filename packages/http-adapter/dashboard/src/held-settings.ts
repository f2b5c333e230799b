/**
 * The website's settings as the studio holds them, with the version they were read at (the API's
 * `ETag`): every save sends it as `If-Match`, so a save made after another merchant's (another tab,
 * another replica) is refused by the server (412) instead of silently overwriting it, and the page says
 * so and offers to reload (docs/http-api.md, "Concurrent edits").
 */
import { adminExchange, ApiError, type Connection } from './api.js';

/** The website's settings as `GET …/settings` answers them (every key; the editors read a few). */
export type Settings = Record<string, unknown>;

/** The settings last read or saved, and their version (shared by the rule editor and the settings editors). */
export interface HeldSettings {
  current: Settings;
  /** The `ETag` they were answered with. */
  version?: string;
}

/** What the page says when a save is refused because someone else saved first. */
export const CHANGED_ELSEWHERE = 'Changed by someone else since you opened it: your change was not saved. Reload to see their change, then make yours again.';

/** A save refused because the settings changed since they were read (412): nothing was written. */
export class SettingsChangedError extends ApiError {
  constructor() {
    super(CHANGED_ELSEWHERE, 412);
    this.name = 'SettingsChangedError';
  }
}

/** Reads the settings and their version into `held`. */
export async function loadSettings(conn: Connection, held: HeldSettings): Promise<void> {
  const { body, headers } = await adminExchange<Settings>(conn, 'GET', 'settings');
  held.current = body;
  held.version = headers.get('etag') ?? undefined;
}

/**
 * PATCHes `patch` into the settings on condition that they are still at the version held; on success
 * `held` takes the answer and its new version. Throws {@link SettingsChangedError} when someone else
 * saved first, an {@link ApiError} for any other refusal (a setting the API names).
 */
export async function saveSettings(conn: Connection, held: HeldSettings, patch: Settings): Promise<void> {
  try {
    const { body, headers } = await adminExchange<Settings>(conn, 'PATCH', 'settings', patch, held.version === undefined ? {} : { 'if-match': held.version });
    held.current = body;
    held.version = headers.get('etag') ?? undefined;
  } catch (err) {
    throw err instanceof ApiError && err.status === 412 ? new SettingsChangedError() : err;
  }
}

/** After {@link SettingsChangedError} is shown in `form`'s message line: a button there that runs `reload`. */
export function offerReload(form: HTMLElement, err: unknown, reload: () => Promise<void>): void {
  const line = form.querySelector<HTMLElement>('.form-message');
  if (!(err instanceof SettingsChangedError) || line === null) return;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'secondary reload-settings';
  button.textContent = 'Reload';
  button.onclick = () => void reload();
  line.append(' ', button);
}
