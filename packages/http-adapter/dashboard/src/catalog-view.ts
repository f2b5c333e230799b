/**
 * The catalog browser: find a product by refId or words (a search with the search key), show it as
 * stored (`GET …/products/{refId}`, every field, its image when a field holds an image URL), edit it
 * through `PATCH …/products` (the API's validation errors shown next to the field they name) and delete
 * it (`DELETE …/products/{refId}`, after a confirmation).
 */
import { admin, adminSend, ApiError, esc, formatNumber, imageUrl, searchProducts, type Connection, type ProductRecord } from './api.js';
import { clearFieldErrors, showFieldErrors } from './field-errors.js';

/** How a field's value is edited: as text, as a number or boolean typed as text, or as JSON (lists, objects, null). */
type Kind = 'string' | 'number' | 'boolean' | 'json';

/** One field of the product on screen. */
interface FieldRow { name: string; kind: Kind; original: unknown; removed: boolean; added: boolean }

/** Matches shown for a search by words. */
const MATCHES = 10;
/** File names a shop's image URLs end with (besides the image role's field, which is an image whatever its name). */
const IMAGE_PATH = /\.(avif|gif|jpe?g|png|svg|webp)(\?.*)?$/i;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

function kindOf(value: unknown): Kind {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return 'json';
}

function textOf(kind: Kind, value: unknown): string {
  return kind === 'json' ? JSON.stringify(value, null, 2) : String(value);
}

/**
 * The value to send for what was typed in a field of `kind`. A number or boolean field typed as something
 * else is sent as the text typed: the API decides whether it fits (a pinned type refuses it).
 * Throws a SyntaxError for a JSON field that is not JSON.
 */
export function parseTyped(kind: Kind, text: string): unknown {
  if (kind === 'string') return text;
  if (kind === 'json') return JSON.parse(text);
  const trimmed = text.trim();
  if (kind === 'number') return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : text;
  return trimmed === 'true' ? true : trimmed === 'false' ? false : text;
}

/** A new field's value: JSON when it is JSON (numbers, true/false, lists, objects), else the text. */
function parseNew(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The product field each message of a refused change names: `records[].field`, else `field "a.b"` in the
 * message (its top-level field); messages naming none are under `''`.
 */
export function fieldErrors(problem: unknown): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (field: string, message: string) => {
    const list = out.get(field) ?? [];
    if (!list.includes(message)) list.push(message);
    out.set(field, list);
  };
  const p = (problem ?? {}) as { errors?: Record<string, string[]>; records?: { field?: string; message: string }[] };
  for (const r of p.records ?? []) add(r.field?.split('.')[0] ?? '', r.message);
  for (const messages of Object.values(p.errors ?? {})) {
    for (const m of messages) {
      if ((p.records ?? []).some((r) => r.message === m)) continue;
      add(/field "([^".]+)/.exec(m)?.[1] ?? '', m);
    }
  }
  return out;
}

/** Mounts the browser into `#catalog`; `connection` answers the connection in force when the user acts. */
export function mountCatalog(connection: () => Connection | undefined): void {
  $('catalog').innerHTML = `<form id="catalog-find" class="product-form" role="search" aria-label="Find a product">
      <label>RefId or words <input id="catalog-query" type="search" spellcheck="false"></label>
      <button type="submit">Find</button>
    </form>
    <p id="catalog-status" class="hint" role="status"></p>
    <div id="catalog-matches"></div>
    <div id="catalog-editor"></div>
    <dialog id="catalog-confirm" aria-labelledby="catalog-confirm-title">
      <h3 id="catalog-confirm-title">Delete this product?</h3>
      <p id="catalog-confirm-text"></p>
      <form method="dialog" class="dialog-buttons"><button value="cancel">Cancel</button><button value="delete" class="danger">Delete</button></form>
    </dialog>`;
  let rows: FieldRow[] = [];
  let shown: ProductRecord | undefined;

  const status = (message: string, isError = false) => {
    const el = $('catalog-status');
    el.textContent = message;
    el.className = isError ? 'error' : 'hint';
  };
  /** The connection, when it can read the catalog (the admin token) — else says what is missing. */
  const ready = (): Connection | undefined => {
    const conn = connection();
    if (!conn?.adminToken) status('Type the admin token above: the catalog is read and changed through the admin API.', true);
    else if (!conn.searchKey) status('Type a search key above: products are found by a search.', true);
    else return conn;
    return undefined;
  };

  const find = async (q: string) => {
    const conn = ready();
    if (!conn || q === '') return;
    status('Searching…');
    // A refId first (an empty query, which the search analytics do not count); words only when no
    // product has that refId (a search for words is counted like a shopper's).
    const byRef = await searchProducts(conn, '', 1, { refId: [q] });
    const byWords = byRef.result.length > 0 ? { result: [], total: 0 } : await searchProducts(conn, q, MATCHES);
    const matches = [...byRef.result, ...byWords.result];
    const { title, price, image } = conn.site.displayFields;
    $('catalog-matches').innerHTML = matches.length === 0 ? '' : `<ol class="matches" aria-label="Matching products">${matches.map((p) => {
      const src = imageUrl(p[image]);
      return `<li class="item">${src ? `<img class="thumb" src="${esc(src)}" alt="" loading="lazy">` : '<span class="thumb" aria-hidden="true"></span>'}
        <span class="item-text"><button type="button" class="link open catalog-open" data-ref="${esc(p.refId)}">${esc(p[title] ?? p.refId)}</button>
        <span class="meta"><code>${esc(p.refId)}</code>${p[price] !== undefined ? ` · <span class="price">${esc(formatNumber(p[price]))}</span>` : ''}</span></span></li>`;
    }).join('')}</ol>`;
    if (matches.length === 0) status(`No product has the refId or the words “${q}”.`);
    else status(byRef.result.length > 0 ? `The product with refId ${q}:` : `${byWords.total.toLocaleString('en')} product(s) match the words; the first ${matches.length}:`);
    if (byRef.result.length > 0) await open(q);
  };

  const open = async (refId: string) => {
    const conn = ready();
    if (!conn) return;
    shown = await admin<ProductRecord>(conn, `products/${encodeURIComponent(refId)}`);
    rows = Object.entries(shown).filter(([name]) => name !== 'refId').map(([name, value]) => ({ name, kind: kindOf(value), original: value, removed: false, added: false }));
    draw(conn);
  };

  /** The image of a field's value, when it is one (the image role's field, or a URL of an image file). */
  const imageOf = (conn: Connection, name: string, value: unknown): string | undefined => {
    const src = imageUrl(value);
    return src && (name === conn.site.displayFields.image || IMAGE_PATH.test(src)) ? src : undefined;
  };

  const draw = (conn: Connection) => {
    const product = shown!;
    const titleValue = product[conn.site.displayFields.title];
    const heading = typeof titleValue === 'string' && titleValue !== '' ? titleValue : product.refId;
    const mainImage = imageOf(conn, conn.site.displayFields.image, product[conn.site.displayFields.image]);
    $('catalog-editor').innerHTML = `<section class="card catalog-product" aria-labelledby="catalog-title">
      <div class="product-card">${mainImage ? `<img class="thumb" src="${esc(mainImage)}" alt="${esc(heading)}">` : ''}
        <div><h2 id="catalog-title">${esc(heading)}</h2><p class="meta">refId <code>${esc(product.refId)}</code> · as stored</p></div></div>
      <form id="catalog-edit" novalidate>
        <table class="fields"><thead><tr><th scope="col">Field</th><th scope="col">Value</th><th scope="col"><span class="visually-hidden">Remove</span></th></tr></thead>
        <tbody>${rows.map((row, i) => {
          const id = `catalog-field-${i}`;
          const value = row.added ? String(row.original) : textOf(row.kind, row.original);
          const input = row.kind === 'json' && !row.added
            ? `<textarea id="${id}" data-path="${esc(row.name)}" rows="${Math.min(8, value.split('\n').length)}" spellcheck="false">${esc(value)}</textarea>`
            : `<input id="${id}" data-path="${esc(row.name)}" type="text" value="${esc(value)}" spellcheck="false">`;
          const src = imageOf(conn, row.name, row.original);
          return `<tr data-field="${esc(row.name)}" class="${row.removed ? 'removed' : ''}">
            <th scope="row"><label for="${id}">${esc(row.name)}</label>${row.added ? ' <span class="badge boost">new</span>' : ''}</th>
            <td>${input}${src ? `<img class="field-image" src="${esc(src)}" alt="${esc(row.name)} of ${esc(product.refId)}">` : ''}</td>
            <td><button type="button" class="secondary remove" data-index="${i}" aria-pressed="${row.removed}" aria-label="Remove field ${esc(row.name)}">${row.removed ? 'Keep' : 'Remove'}</button></td></tr>`;
        }).join('')}</tbody></table>
        <fieldset class="add-field"><legend>Add a field</legend>
          <label>Field name <input id="catalog-new-name" type="text" spellcheck="false"></label>
          <label>Field value <input id="catalog-new-value" type="text" spellcheck="false" placeholder="text, or JSON: 12, true, [&quot;a&quot;]"></label>
          <button type="button" id="catalog-add" class="secondary">Add field</button></fieldset>
        <p class="form-message" role="status"></p>
        <div class="catalog-actions"><button type="submit">Save changes</button><button type="button" id="catalog-delete" class="danger">Delete product</button></div>
      </form></section>`;
  };

  /** Keeps what was typed into the rows (before a redraw). */
  const typedText = () => rows.map((_, i) => ($(`catalog-field-${i}`) as HTMLInputElement | HTMLTextAreaElement | null)?.value ?? '');

  /** Shows messages by product field (`''`: none) beside their fields, as the studio shows the API's errors. */
  const showErrors = (errors: Map<string, string[]>) => {
    showFieldErrors($('catalog-edit'), new ApiError('The change was refused.', 400, Object.fromEntries(errors)));
  };

  const save = async () => {
    const conn = ready();
    if (!conn || !shown) return;
    const texts = typedText();
    const patch: Record<string, unknown> = { refId: shown.refId };
    const local = new Map<string, string[]>();
    rows.forEach((row, i) => {
      if (row.removed) {
        if (!row.added) patch[row.name] = null;
        return;
      }
      if (row.added) {
        patch[row.name] = parseNew(texts[i]!);
        return;
      }
      try {
        const value = parseTyped(row.kind, texts[i]!);
        if (JSON.stringify(value) !== JSON.stringify(row.original)) patch[row.name] = value;
      } catch (err) {
        local.set(row.name, [`Not JSON: ${(err as Error).message}`]);
      }
    });
    clearFieldErrors($('catalog-edit'));
    if (local.size > 0) return showErrors(local);
    const changed = Object.keys(patch).length - 1;
    if (changed === 0) return status('Nothing changed.');
    try {
      await adminSend(conn, 'PATCH', 'products', [patch]);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 400) throw err;
      showErrors(fieldErrors(err.problem));
      return status('The change was refused: nothing was saved.', true);
    }
    await open(shown.refId);
    status(`Saved ${changed} field(s) of ${shown.refId}.`);
  };

  const remove = async () => {
    const conn = ready();
    if (!conn || !shown) return;
    const refId = shown.refId;
    const result = await adminSend<{ deleted: number; catalogSize: number }>(conn, 'DELETE', `products/${encodeURIComponent(refId)}`);
    shown = undefined;
    rows = [];
    $('catalog-editor').replaceChildren();
    for (const b of document.querySelectorAll<HTMLElement>('#catalog-matches .catalog-open')) if (b.dataset.ref === refId) b.closest('li')!.remove();
    status(result.deleted > 0 ? `Deleted ${refId}; the catalog holds ${result.catalogSize.toLocaleString('en')} product(s).` : `${refId} was already gone.`);
  };

  /** Runs an action, showing its failure in the status line. */
  const run = (action: () => Promise<void>) => action().catch((err: unknown) => status((err as Error).message, true));

  $('catalog-find').onsubmit = (e) => { e.preventDefault(); void run(() => find($<HTMLInputElement>('catalog-query').value.trim())); };
  $('catalog-matches').onclick = (e) => {
    const button = (e.target as HTMLElement).closest<HTMLButtonElement>('button.catalog-open');
    if (button) void run(() => open(button.dataset.ref!));
  };
  const dialog = $<HTMLDialogElement>('catalog-confirm');
  dialog.onclose = () => { if (dialog.returnValue === 'delete') void run(remove); };
  $('catalog-editor').onclick = (e) => {
    const target = e.target as HTMLElement;
    const conn = connection();
    if (!conn || !shown) return;
    if (target.closest('#catalog-delete')) {
      $('catalog-confirm-text').textContent = `${shown.refId} leaves the catalog at once (searches and recommendations stop showing it). This cannot be undone.`;
      dialog.returnValue = '';
      dialog.showModal();
      return;
    }
    const keep = typedText();
    const toggle = target.closest<HTMLButtonElement>('button.remove');
    if (toggle) {
      const row = rows[Number(toggle.dataset.index)]!;
      row.removed = !row.removed;
    } else if (target.closest('#catalog-add')) {
      const name = $<HTMLInputElement>('catalog-new-name').value.trim();
      if (name === '' || name === 'refId' || rows.some((r) => r.name === name)) {
        showErrors(new Map([['', [name === '' ? 'Type the new field\'s name.' : `The product has a field "${name}" already.`]]]));
        return;
      }
      rows.push({ name, kind: 'string', original: $<HTMLInputElement>('catalog-new-value').value, removed: false, added: true });
    } else return;
    // Redrawn with what was typed kept (the rows' originals stay what is stored).
    draw(conn);
    keep.forEach((text, i) => { ($(`catalog-field-${i}`) as HTMLInputElement | HTMLTextAreaElement).value = text; });
  };
  $('catalog-editor').onsubmit = (e) => { e.preventDefault(); void run(save); };
}
