/**
 * The merchandising studio: for a query, its live results and the rule that merchandises it — products
 * pinned to positions, hidden, and boosted or buried by facet values, within an optional time window.
 * Every change is previewed by the API (`POST …/settings/preview`: the ranking before and after, the
 * change merged into the settings as the save will merge it, nothing stored), and saved as
 * `settings.rules` with `PATCH …/settings` on condition of the version read (held-settings.ts: a save
 * after someone else's is refused, said, and a reload offered). The API's validation errors show next to
 * their field. Below, the relevance settings editors (settings-editors.ts).
 */
import { adminSend, esc, getJson, type Connection } from './api.js';
import { clearFieldErrors, showFieldErrors, showSaved } from './field-errors.js';
import { loadSettings, offerReload, saveSettings, type HeldSettings } from './held-settings.js';
import { showSettingsEditors } from './settings-editors.js';

/** A merchandising rule as `settings.rules` holds it (docs/http-api.md, "Merchandising rules"). */
interface Rule {
  id: string;
  query: string;
  match?: 'exact' | 'contains';
  pin?: { refId: string; position: number }[];
  hide?: string[];
  boost?: { scope: Record<string, unknown>; weight: number }[];
  from?: string;
  until?: string;
  [other: string]: unknown;
}

type Item = { refId: string } & Record<string, unknown>;
interface Ranking { total_results: number; result: Item[]; redirect?: string }
interface Preview { before: Ranking; after: Ranking; moves: { refId: string; before: number | null; after: number | null }[] }

/** Results a query shows in the studio. */
const PAGE_SIZE = 20;
/** Wait after the last change before the preview is asked for (typing a position, a weight). */
const PREVIEW_DELAY_MS = 250;

/** A query as rules compare it: lower case, words joined by one space (docs/http-api.md). */
const normalise = (q: string): string => q.toLowerCase().split(/\s+/).filter(Boolean).join(' ');

/** An ISO date-time as a `datetime-local` value (local time), and back. */
function toLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}
function fromLocalInput(value: string): string | undefined {
  if (value === '') return undefined;
  const d = new Date(value);
  // A value the browser could not read goes to the API as typed: it names the field.
  return Number.isNaN(d.getTime()) ? value : d.toISOString();
}

/** The rule's boosts as shown: `field = value` (a boost of one facet value), else its scope as JSON. */
function scopeLabel(scope: Record<string, unknown>): string {
  const entries = Object.entries(scope);
  if (entries.length === 1 && Array.isArray(entries[0]![1]) && entries[0]![1].length === 1) return `${entries[0]![0]} = ${String(entries[0]![1][0])}`;
  return JSON.stringify(scope);
}

/** A rule with no effect (nothing pinned, hidden or boosted): saving it removes the rule. */
const isEmpty = (rule: Rule) => !rule.pin?.length && !rule.hide?.length && !rule.boost?.length;

/** The studio of one connection (made again on each connect). */
class Studio {
  private readonly settings: HeldSettings = { current: {} };
  private q = '';
  private draft: Rule | undefined;
  /** Where the draft sits in `settings.rules` (the end for a new rule): the index the API's error paths name. */
  private index = 0;
  private readonly titles = new Map<string, string>();
  private previewTimer: ReturnType<typeof setTimeout> | undefined;
  /** The preview asked for last: an older answer arriving later is dropped. */
  private previewSeq = 0;

  constructor(private readonly conn: Connection, private readonly root: HTMLElement) {}

  private get rules(): Rule[] {
    return (this.settings.current.rules as Rule[] | undefined) ?? [];
  }

  private el<T extends HTMLElement>(selector: string): T {
    return this.root.querySelector<T>(selector)!;
  }

  async start(): Promise<void> {
    await loadSettings(this.conn, this.settings);
    this.el<HTMLFormElement>('#studio-query').onsubmit = (e) => {
      e.preventDefault();
      void this.open(this.el<HTMLInputElement>('#studio-q').value);
    };
    await showSettingsEditors(this.el('#studio-settings'), this.conn, this.settings, () => this.reload());
  }

  /** Reads the settings again (someone else saved) and redraws the editors and the open rule from them. */
  private async reload(): Promise<void> {
    await loadSettings(this.conn, this.settings);
    await showSettingsEditors(this.el('#studio-settings'), this.conn, this.settings, () => this.reload());
    if (this.draft !== undefined) await this.open(this.q);
  }

  /** Opens the rule of a query (the first exact rule for it, else a new one) and previews it. */
  async open(q: string): Promise<void> {
    // A preview asked for the rule before is of no use now, nor what was said of it.
    clearTimeout(this.previewTimer);
    clearFieldErrors(this.el('#rule-form'));
    this.q = q;
    const query = normalise(q);
    const rules = this.rules;
    const found = rules.findIndex((r) => (r.match ?? 'exact') === 'exact' && normalise(r.query) === query);
    this.index = found >= 0 ? found : rules.length;
    const taken = new Set(rules.map((r) => r.id));
    let id = `studio-${query.replace(/[^\p{L}\p{N}]+/gu, '-') || 'browse'}`;
    for (let n = 2; taken.has(id) && found < 0; n++) id = `studio-${query.replace(/[^\p{L}\p{N}]+/gu, '-') || 'browse'}-${n}`;
    this.draft = found >= 0 ? structuredClone(rules[found]!) : { id, query, match: 'exact' };
    this.el('#studio-rule').hidden = false;
    this.drawRule();
    await Promise.all([this.loadFacetValues(), this.preview()]);
  }

  /** The rules as the save will send them: the draft in its place (left out when it does nothing). */
  private rulesWithDraft(): Rule[] {
    const rules = [...this.rules];
    const draft = this.cleaned();
    if (isEmpty(draft)) {
      if (this.index < rules.length) rules.splice(this.index, 1);
    } else {
      rules[this.index] = draft;
    }
    return rules;
  }

  /** The draft without empty lists or an empty window (the API refuses nothing of it, but keeps the rule short). */
  private cleaned(): Rule {
    const rule: Rule = { ...this.draft! };
    for (const key of ['pin', 'hide', 'boost'] as const) if ((rule[key]?.length ?? 0) === 0) delete rule[key];
    for (const key of ['from', 'until'] as const) if (!rule[key]) delete rule[key];
    return rule;
  }

  private title(refId: string): string {
    return this.titles.get(refId) ?? refId;
  }

  private remember(items: Item[]): void {
    const field = this.conn.site.displayFields.title;
    for (const item of items) if (typeof item[field] === 'string') this.titles.set(item.refId, item[field] as string);
  }

  /** The facet values of the query's results, offered for boosts (with the search key; typed by hand without one). */
  private async loadFacetValues(): Promise<void> {
    const lists = this.el('#studio-values');
    lists.replaceChildren();
    if (!this.conn.searchKey) return;
    const answer = await getJson<{ payload: { aggregations?: Record<string, { key: string }[]> } }>('/v1.4/search', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.conn.searchKey}` },
      body: JSON.stringify({ website_id: this.conn.site.websiteId, client: this.conn.site.client, q: this.q, start: 0, size: 0, aggregations: this.conn.site.facets }),
    });
    for (const [field, buckets] of Object.entries(answer.payload.aggregations ?? {})) {
      const list = document.createElement('datalist');
      list.id = `studio-values-${field}`;
      list.append(...buckets.map((b) => new Option(b.key, b.key)));
      lists.append(list);
    }
  }

  /** Draws the rule's form from the draft; each control writes back into the draft and asks for a preview. */
  private drawRule(): void {
    const rule = this.draft!;
    const at = `settings.rules[${this.index}]`;
    const form = this.el<HTMLFormElement>('#rule-form');
    const facets = this.conn.site.facets;
    this.el('#rule-title').textContent = `Rule for “${rule.query || '(every product, no query)'}”${this.index < this.rules.length ? '' : ' (new)'}`;
    this.el('#rule-body').innerHTML = `
      <div class="window">
        <label>Active from <input type="datetime-local" id="rule-from" data-path="${at}.from" value="${esc(toLocalInput(rule.from))}"></label>
        <label>Active until <input type="datetime-local" id="rule-until" data-path="${at}.until" value="${esc(toLocalInput(rule.until))}"></label>
      </div>
      <h4>Pinned</h4>
      <ul class="rows" data-path="${at}.pin">${(rule.pin ?? []).map((p, j) => `<li class="row">
        <span class="grow">${esc(this.title(p.refId))} <span class="meta">${esc(p.refId)}</span></span>
        <label>Position <input type="number" class="pin-position" aria-label="Pinned position of ${esc(this.title(p.refId))}" data-index="${j}" data-path="${at}.pin[${j}].position" value="${p.position}"></label>
        <button type="button" class="unpin secondary" data-index="${j}" aria-label="Unpin ${esc(this.title(p.refId))}">Unpin</button></li>`).join('') || '<li class="hint">None: pin a result below.</li>'}</ul>
      <div class="row add-pin">
        <label class="grow">Product refId to pin <input id="pin-ref" autocomplete="off" spellcheck="false" placeholder="any product, even one the query does not find"></label>
        <label>Position <input id="pin-position" type="number" min="1" value="1" aria-label="Position to pin it at"></label>
        <button type="button" id="add-pin" class="secondary">Pin by refId</button>
      </div>
      <h4>Hidden</h4>
      <ul class="rows" data-path="${at}.hide">${(rule.hide ?? []).map((refId, j) => `<li class="row">
        <span class="grow">${esc(this.title(refId))} <span class="meta">${esc(refId)}</span></span>
        <button type="button" class="unhide secondary" data-index="${j}" aria-label="Show ${esc(this.title(refId))} again">Show again</button></li>`).join('') || '<li class="hint">None.</li>'}</ul>
      <h4>Boost and bury</h4>
      <ul class="rows" data-path="${at}.boost">${(rule.boost ?? []).map((b, j) => `<li class="row">
        <span class="grow">${b.weight >= 1 ? 'Boost' : 'Bury'} ${esc(scopeLabel(b.scope))}</span>
        <label>Weight <input type="number" step="any" class="boost-weight" aria-label="Weight of ${esc(scopeLabel(b.scope))}" data-index="${j}" data-path="${at}.boost[${j}].weight" value="${b.weight}"></label>
        <button type="button" class="unboost secondary" data-index="${j}" aria-label="Remove the boost of ${esc(scopeLabel(b.scope))}">Remove</button></li>`).join('') || '<li class="hint">None.</li>'}</ul>
      <div class="row add-boost">
        <label>Facet <select id="boost-field" aria-label="Facet">${facets.map((f) => `<option>${esc(f)}</option>`).join('')}</select></label>
        <label class="grow">Facet value <input id="boost-value" list="studio-values-${esc(facets[0] ?? '')}" autocomplete="off"></label>
        <button type="button" id="add-boost" class="secondary">Boost (×2)</button>
        <button type="button" id="add-bury" class="secondary">Bury (×0.5)</button>
      </div>`;
    clearFieldErrors(form, { keepNotice: true });
    const changed = () => this.schedulePreview();
    this.el<HTMLInputElement>('#rule-from').onchange = (e) => { rule.from = fromLocalInput((e.target as HTMLInputElement).value); changed(); };
    this.el<HTMLInputElement>('#rule-until').onchange = (e) => { rule.until = fromLocalInput((e.target as HTMLInputElement).value); changed(); };
    const indexOf = (el: Element) => Number((el as HTMLElement).dataset.index);
    for (const input of form.querySelectorAll<HTMLInputElement>('.pin-position')) input.onchange = () => { rule.pin![indexOf(input)]!.position = Number(input.value); changed(); };
    for (const input of form.querySelectorAll<HTMLInputElement>('.boost-weight')) input.onchange = () => { rule.boost![indexOf(input)]!.weight = Number(input.value); changed(); };
    const removeFrom = (selector: string, list: () => unknown[] | undefined) => {
      for (const button of form.querySelectorAll<HTMLButtonElement>(selector)) {
        button.onclick = () => { list()!.splice(indexOf(button), 1); this.drawRule(); changed(); };
      }
    };
    removeFrom('.unpin', () => rule.pin);
    removeFrom('.unhide', () => rule.hide);
    removeFrom('.unboost', () => rule.boost);
    const field = this.el<HTMLSelectElement>('#boost-field');
    const value = this.el<HTMLInputElement>('#boost-value');
    field.onchange = () => value.setAttribute('list', `studio-values-${field.value}`);
    const addBoost = (weight: number) => {
      if (value.value.trim() === '') return value.focus();
      (rule.boost ??= []).push({ scope: { [field.value]: [value.value.trim()] }, weight });
      this.drawRule();
      changed();
    };
    this.el<HTMLButtonElement>('#add-pin').onclick = () => {
      const refId = this.el<HTMLInputElement>('#pin-ref').value.trim();
      if (refId === '') return this.el<HTMLInputElement>('#pin-ref').focus();
      this.pin(refId, Number(this.el<HTMLInputElement>('#pin-position').value));
    };
    this.el<HTMLButtonElement>('#add-boost').onclick = () => addBoost(2);
    this.el<HTMLButtonElement>('#add-bury').onclick = () => addBoost(0.5);
    form.onsubmit = (e) => { e.preventDefault(); void this.save(false); };
    this.el<HTMLButtonElement>('#rule-delete').onclick = () => void this.save(true);
  }

  /** Pins a product at a 1-based position (replacing its earlier pin) or hides it, from the live results. */
  private pin(refId: string, position: number): void {
    const rule = this.draft!;
    rule.pin = [...(rule.pin ?? []).filter((p) => p.refId !== refId), { refId, position }];
    rule.hide = rule.hide?.filter((r) => r !== refId);
    this.drawRule();
    this.schedulePreview();
  }

  private hide(refId: string): void {
    const rule = this.draft!;
    rule.pin = rule.pin?.filter((p) => p.refId !== refId);
    if (!(rule.hide ?? []).includes(refId)) (rule.hide ??= []).push(refId);
    this.drawRule();
    this.schedulePreview();
  }

  private schedulePreview(): void {
    clearTimeout(this.previewTimer);
    this.previewTimer = setTimeout(() => void this.preview(), PREVIEW_DELAY_MS);
  }

  /** Asks the API for the ranking before and after the draft, and draws both (or the errors beside their fields). */
  private async preview(): Promise<void> {
    const seq = ++this.previewSeq;
    const form = this.el<HTMLFormElement>('#rule-form');
    this.el('#studio-status').textContent = 'Previewing…';
    try {
      const answer = await adminSend<Preview>(this.conn, 'POST', 'settings/preview', { search: { q: this.q, size: PAGE_SIZE }, settings: { rules: this.rulesWithDraft() } });
      if (seq !== this.previewSeq) return;
      clearFieldErrors(form, { keepNotice: true });
      this.drawPreview(answer);
      this.el('#studio-status').textContent = `${answer.before.total_results} results live; ${answer.after.total_results} with the change.`;
    } catch (err) {
      if (seq !== this.previewSeq) return;
      showFieldErrors(form, err);
      this.el('#studio-status').textContent = 'The change cannot be previewed: see the message beside its field.';
    }
  }

  private drawPreview(preview: Preview): void {
    this.remember(preview.before.result);
    this.remember(preview.after.result);
    const moves = new Map(preview.moves.map((m) => [m.refId, m]));
    const name = (item: Item) => this.title(item.refId);
    this.el('#studio-live').innerHTML = preview.before.result.map((item, i) => {
      const position = i + 1;
      return `<li class="row" data-ref="${esc(item.refId)}">
        <span class="pos" aria-hidden="true">${position}</span>
        <span class="grow">${esc(name(item))} <span class="meta">${esc(item.refId)}</span></span>
        <input type="number" class="pin-at" min="1" value="${position}" aria-label="Pin position for ${esc(name(item))}">
        <button type="button" class="do-pin secondary" aria-label="Pin ${esc(name(item))}">Pin</button>
        <button type="button" class="do-hide secondary" aria-label="Hide ${esc(name(item))}">Hide</button></li>`;
    }).join('') || '<li class="hint">No results.</li>';
    this.el('#studio-after').innerHTML = preview.after.result.map((item, i) => {
      const was = moves.get(item.refId)?.before ?? null;
      const badge = was === null ? '<span class="badge new">new</span>' : was > i + 1 ? `<span class="badge up">↑${was - (i + 1)}</span>`
        : was < i + 1 ? `<span class="badge down">↓${i + 1 - was}</span>` : '';
      return `<li class="row" data-ref="${esc(item.refId)}"><span class="pos" aria-hidden="true">${i + 1}</span>
        <span class="grow">${esc(name(item))} <span class="meta">${esc(item.refId)}</span></span>${badge}</li>`;
    }).join('') || '<li class="hint">No results.</li>';
    const gone = preview.moves.filter((m) => m.after === null);
    this.el('#studio-gone').textContent = gone.length > 0 ? `Off the page after the change: ${gone.map((m) => this.title(m.refId)).join(', ')}.` : '';
    for (const row of this.el('#studio-live').querySelectorAll<HTMLElement>('li[data-ref]')) {
      const refId = row.dataset.ref!;
      row.querySelector<HTMLButtonElement>('.do-pin')!.onclick = () => this.pin(refId, Number(row.querySelector<HTMLInputElement>('.pin-at')!.value));
      row.querySelector<HTMLButtonElement>('.do-hide')!.onclick = () => this.hide(refId);
    }
  }

  /** Saves the rules with the draft in place (or without it: `remove`, or a rule that does nothing). */
  private async save(remove: boolean): Promise<void> {
    const form = this.el<HTMLFormElement>('#rule-form');
    if (remove) this.draft = { id: this.draft!.id, query: this.draft!.query, match: this.draft!.match };
    try {
      await saveSettings(this.conn, this.settings, { rules: this.rulesWithDraft() });
      await this.open(this.q);
      showSaved(form, remove || isEmpty(this.draft!) ? 'Saved: the query has no rule now.' : 'Saved: searches for this query use the rule from now on.');
    } catch (err) {
      showFieldErrors(form, err);
      offerReload(form, err, () => this.reload());
    }
  }
}

/** Shows the studio for a connection: it needs the admin token (settings are admin calls). */
export async function showStudio(conn: Connection): Promise<void> {
  const root = document.getElementById('view-studio')!;
  const needsToken = root.querySelector<HTMLElement>('#studio-needs-token')!;
  const content = root.querySelector<HTMLElement>('#studio-content')!;
  needsToken.hidden = conn.adminToken !== '';
  content.hidden = conn.adminToken === '';
  if (!conn.adminToken) return;
  root.querySelector<HTMLElement>('#studio-rule')!.hidden = true;
  await new Studio(conn, root).start();
}
