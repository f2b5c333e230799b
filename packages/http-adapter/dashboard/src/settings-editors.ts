/**
 * The relevance settings editors of the studio: synonyms (two-way groups and one-way rules), stop words,
 * redirects, typo tolerance, field weights and typed fields (`settings.fields`). Each is a form over one
 * settings key, read from `GET …/settings` and saved with `PATCH …/settings` (JSON Merge Patch: a key
 * of a map left out is removed by sending null for it). Nothing is checked here that the API checks:
 * its validation errors are shown next to the field they name (field-errors.ts).
 */
import { esc, type Connection } from './api.js';
import { showFieldErrors, showSaved } from './field-errors.js';
import { offerReload, saveSettings, type HeldSettings, type Settings } from './held-settings.js';

/** One editor: a settings key, how its form is drawn from the settings and how the PATCH value is read back. */
interface Editor {
  key: string;
  title: string;
  hint: string;
  /** Draws the form's fields into `body` from the settings. */
  render(body: HTMLElement, settings: Settings): void;
  /** The value of `key` to PATCH, read from the form (and the settings it was drawn from, to remove map keys). */
  read(body: HTMLElement, settings: Settings): unknown;
}

/** Values typed as a list: separated by commas or new lines, trimmed, blanks dropped. */
const listOf = (text: string): string[] => text.split(/[,\n]/).map((w) => w.trim()).filter((w) => w !== '');
const valueOf = (row: Element, field: string): string => row.querySelector<HTMLInputElement | HTMLSelectElement>(`[data-field="${field}"]`)?.value ?? '';
/** A number typed in a field, or the text as typed when it is not one (the API then names the field). */
const numberOf = (text: string): number | string => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text);

/**
 * An editor of a list of rows (synonyms, redirects, field weights, typed fields): each row drawn by
 * `row`, an "Add" button, a "Remove" button per row. The rows are read back from the DOM with `readRow`.
 */
function listEditor<R>(options: {
  key: string; title: string; hint: string; noun: string;
  rowsOf(settings: Settings): R[];
  blank(): R;
  /** The controls of row `i` (0-based), each with a `data-field` and an accessible name. */
  row(row: R, i: number): string;
  readRow(el: Element): R;
  valueOf(rows: R[], settings: Settings): unknown;
}): Editor {
  const draw = (body: HTMLElement, rows: R[]) => {
    body.innerHTML = `<ul class="rows">${rows.map((r, i) => `<li class="row" data-index="${i}">${options.row(r, i)}
      <button type="button" class="remove" aria-label="Remove ${esc(options.noun)} ${i + 1}">Remove</button></li>`).join('')}</ul>
      <button type="button" class="add secondary">Add ${esc(options.noun)}</button>`;
    const readAll = () => [...body.querySelectorAll('.row')].map((el) => options.readRow(el));
    body.querySelector<HTMLButtonElement>('.add')!.onclick = () => draw(body, [...readAll(), options.blank()]);
    for (const button of body.querySelectorAll<HTMLButtonElement>('.remove')) {
      button.onclick = () => {
        const index = Number(button.closest<HTMLElement>('.row')!.dataset.index);
        draw(body, readAll().filter((_, i) => i !== index));
      };
    }
    // A row whose shape depends on a choice (a synonym's kind) is drawn again when it changes.
    for (const select of body.querySelectorAll<HTMLSelectElement>('select[data-redraw]')) select.onchange = () => draw(body, readAll());
  };
  return {
    key: options.key, title: options.title, hint: options.hint,
    render: (body, settings) => draw(body, options.rowsOf(settings)),
    read: (body, settings) => {
      const rows = [...body.querySelectorAll('.row')].map((el) => options.readRow(el));
      // Drawn again so that each control's path names the row as sent (a field renamed, a row removed).
      draw(body, rows);
      return options.valueOf(rows, settings);
    },
  };
}

/** A map setting (field → value) as rows; a key no row keeps any more is sent as null (removed). */
function mapValue<R extends { field: string }, V>(rows: R[], value: (row: R) => V, before: unknown): Record<string, V | null> {
  const out: Record<string, V | null> = {};
  for (const key of Object.keys((before as Record<string, unknown> | undefined) ?? {})) out[key] = null;
  for (const row of rows) if (row.field.trim() !== '') out[row.field.trim()] = value(row);
  return out;
}

type SynonymRow = { kind: 'two-way' | 'one-way'; words: string; from: string; to: string };

const synonyms = listEditor<SynonymRow>({
  key: 'synonyms', title: 'Synonyms', noun: 'synonym',
  hint: 'Two-way: every word or phrase finds the others. One-way: a query for the first also finds the others, not the reverse. Separate words with commas.',
  rowsOf: (s) => ((s.synonyms as unknown[] | undefined) ?? []).map((e) => (Array.isArray(e)
    ? { kind: 'two-way', words: e.join(', '), from: '', to: '' }
    : { kind: 'one-way', words: '', from: (e as { from: string }).from, to: (e as { to: string[] }).to.join(', ') })),
  blank: () => ({ kind: 'two-way', words: '', from: '', to: '' }),
  row: (r, i) => `<label>Kind of synonym ${i + 1} <select data-field="kind" data-redraw aria-label="Kind of synonym ${i + 1}">
      <option value="two-way"${r.kind === 'two-way' ? ' selected' : ''}>two-way</option>
      <option value="one-way"${r.kind === 'one-way' ? ' selected' : ''}>one-way</option></select></label>
    ${r.kind === 'two-way'
    ? `<label class="grow">Equivalent words of synonym ${i + 1} <input data-field="words" data-path="settings.synonyms[${i}]" value="${esc(r.words)}" placeholder="tv, television"></label>`
    : `<label>Query of synonym ${i + 1} <input data-field="from" data-path="settings.synonyms[${i}].from" value="${esc(r.from)}" placeholder="laptop"></label>
       <label class="grow">Also finds (synonym ${i + 1}) <input data-field="to" data-path="settings.synonyms[${i}].to" value="${esc(r.to)}" placeholder="notebook, ultrabook"></label>`}`,
  readRow: (el) => ({ kind: valueOf(el, 'kind') as SynonymRow['kind'], words: valueOf(el, 'words'), from: valueOf(el, 'from'), to: valueOf(el, 'to') }),
  valueOf: (rows) => rows.map((r) => (r.kind === 'two-way' ? listOf(r.words) : { from: r.from.trim(), to: listOf(r.to) })),
});

type RedirectRow = { queries: string; url: string };

const redirects = listEditor<RedirectRow>({
  key: 'redirects', title: 'Redirects', noun: 'redirect',
  hint: 'A search for one of the queries (compared after lower-casing) answers with this URL in payload.redirects.url.',
  rowsOf: (s) => ((s.redirects as { queries: string[]; url: string }[] | undefined) ?? []).map((r) => ({ queries: r.queries.join(', '), url: r.url })),
  blank: () => ({ queries: '', url: '' }),
  row: (r, i) => `<label class="grow">Queries of redirect ${i + 1} <input data-field="queries" data-path="settings.redirects[${i}].queries" value="${esc(r.queries)}" placeholder="help, contact"></label>
    <label class="grow">URL of redirect ${i + 1} <input data-field="url" data-path="settings.redirects[${i}].url" value="${esc(r.url)}" placeholder="https://shop.example/help"></label>`,
  readRow: (el) => ({ queries: valueOf(el, 'queries'), url: valueOf(el, 'url') }),
  valueOf: (rows) => rows.map((r) => ({ queries: listOf(r.queries), url: r.url.trim() })),
});

type WeightRow = { field: string; weight: string };

const fieldWeights = listEditor<WeightRow>({
  key: 'fieldWeights', title: 'Field weights', noun: 'field weight',
  hint: 'How much a match in each text field counts (BM25F); 0: the field does not match.',
  rowsOf: (s) => Object.entries((s.fieldWeights as Record<string, number> | undefined) ?? {}).map(([field, weight]) => ({ field, weight: String(weight) })),
  blank: () => ({ field: '', weight: '1' }),
  row: (r, i) => `<label>Field of weight ${i + 1} <input data-field="field" value="${esc(r.field)}" placeholder="title"></label>
    <label>Weight of ${esc(r.field || `field ${i + 1}`)} <input data-field="weight" type="number" step="any" data-path="settings.fieldWeights.${esc(r.field)}" value="${esc(r.weight)}"></label>`,
  readRow: (el) => ({ field: valueOf(el, 'field'), weight: valueOf(el, 'weight') }),
  valueOf: (rows, s) => mapValue(rows, (r: WeightRow) => numberOf(r.weight), s.fieldWeights),
});

type TypeRow = { field: string; type: string };

/** The types `settings.fields` accepts, read from the API's own document (the one list). */
let fieldTypes: Promise<string[]> | undefined;
function loadFieldTypes(): Promise<string[]> {
  fieldTypes ??= fetch('/openapi.json').then((res) => res.json()).then((doc: { components: { schemas: { WebsiteSettings: { properties: { fields: { additionalProperties: { properties: { type: { enum: string[] } } } } } } } } }) =>
    doc.components.schemas.WebsiteSettings.properties.fields.additionalProperties.properties.type.enum);
  return fieldTypes;
}

function typedFields(types: readonly string[]): Editor {
  return listEditor<TypeRow>({
    key: 'fields', title: 'Typed fields', noun: 'typed field',
    hint: 'Pin a field\'s type: a value that does not fit is refused when products are loaded (and a type stored products do not fit is refused here).',
    rowsOf: (s) => Object.entries((s.fields as Record<string, { type: string }> | undefined) ?? {}).map(([field, { type }]) => ({ field, type })),
    blank: () => ({ field: '', type: types[0] ?? 'text' }),
    row: (r, i) => `<label>Name of typed field ${i + 1} <input data-field="field" value="${esc(r.field)}" placeholder="price"></label>
      <label>Type of ${esc(r.field || `typed field ${i + 1}`)} <select data-field="type" data-path="settings.fields.${esc(r.field)}" aria-label="Type of ${esc(r.field || `typed field ${i + 1}`)}">
        ${types.map((t) => `<option${t === r.type ? ' selected' : ''}>${esc(t)}</option>`).join('')}</select></label>`,
    readRow: (el) => ({ field: valueOf(el, 'field'), type: valueOf(el, 'type') }),
    valueOf: (rows, s) => mapValue(rows, (r: TypeRow) => ({ type: r.type }), s.fields),
  });
}

const stopWords: Editor = {
  key: 'stopWords', title: 'Stop words', hint: 'Words a query ignores, added to the language\'s own. Separate them with commas or new lines.',
  render: (body, s) => {
    body.innerHTML = `<label class="grow">Stop words <textarea data-field="words" data-path="settings.stopWords" rows="3">${esc(((s.stopWords as string[] | undefined) ?? []).join(', '))}</textarea></label>`;
  },
  read: (body) => listOf(body.querySelector('textarea')!.value),
};

const typoTolerance: Editor = {
  key: 'typoTolerance', title: 'Typo tolerance', hint: 'How many typing errors a query word may have, by its length (empty: the default).',
  render: (body, s) => {
    const t = (s.typoTolerance as { enabled?: boolean; minWordSizeOneTypo?: number; minWordSizeTwoTypos?: number } | undefined) ?? {};
    body.innerHTML = `<label class="check"><input type="checkbox" data-field="enabled" data-path="settings.typoTolerance.enabled"${t.enabled === false ? '' : ' checked'}> Typo tolerance on</label>
      <label>Minimum word length for one typo <input type="number" data-field="one" data-path="settings.typoTolerance.minWordSizeOneTypo" value="${esc(t.minWordSizeOneTypo ?? '')}"></label>
      <label>Minimum word length for two typos <input type="number" data-field="two" data-path="settings.typoTolerance.minWordSizeTwoTypos" value="${esc(t.minWordSizeTwoTypos ?? '')}"></label>`;
  },
  read: (body) => {
    const size = (field: string) => (valueOf(body, field).trim() === '' ? null : numberOf(valueOf(body, field)));
    return { enabled: body.querySelector<HTMLInputElement>('[data-field="enabled"]')!.checked, minWordSizeOneTypo: size('one'), minWordSizeTwoTypos: size('two') };
  },
};

/**
 * Draws one editor's form into `container`; saving PATCHes its key (on condition of the version held) and
 * draws it again from the answer. A save refused because someone else saved first offers `reload`.
 */
function mountEditor(container: HTMLElement, conn: Connection, editor: Editor, settings: HeldSettings, reload: () => Promise<void>): void {
  const form = document.createElement('form');
  form.className = 'card editor';
  form.noValidate = true;
  form.id = `editor-${editor.key}`;
  form.setAttribute('aria-labelledby', `${form.id}-title`);
  form.innerHTML = `<h3 id="${form.id}-title">${esc(editor.title)}</h3><p class="hint">${esc(editor.hint)}</p><div class="editor-body"></div>
    <div class="actions"><button type="submit">Save ${esc(editor.title.toLowerCase())}</button><p class="form-message" role="status"></p></div>`;
  const body = form.querySelector<HTMLElement>('.editor-body')!;
  editor.render(body, settings.current);
  form.onsubmit = async (e) => {
    e.preventDefault();
    const value = editor.read(body, settings.current);
    try {
      await saveSettings(conn, settings, { [editor.key]: value });
      editor.render(body, settings.current);
      showSaved(form, 'Saved: searches use it from now on.');
    } catch (err) {
      showFieldErrors(form, err);
      offerReload(form, err, reload);
    }
  };
  container.append(form);
}

/**
 * Draws every editor into `container` from the settings (shared with the caller, which reads them for the
 * rules); `reload` reads them again and redraws (offered when a save finds them changed by someone else).
 */
export async function showSettingsEditors(container: HTMLElement, conn: Connection, settings: HeldSettings, reload: () => Promise<void>): Promise<void> {
  const types = await loadFieldTypes();
  container.replaceChildren();
  for (const editor of [synonyms, stopWords, redirects, typoTolerance, fieldWeights, typedFields(types)]) mountEditor(container, conn, editor, settings, reload);
}
