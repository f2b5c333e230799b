/**
 * The product page: every recommendation method with the tactic that served each item, and bundles.
 * Recommendation and bundle answers carry refIds only; every item is shown by its catalog record
 * (title, price, image: the website's display fields), fetched in one search for all of them. A method
 * whose only input is a customer id is not called without one: its card asks for one instead, so the
 * page makes no request the server must refuse.
 */
import { ApiError, bundles, esc, formatNumber, imageUrl, productsByRef, recommend, type Connection, type ProductRecord, type RecommendAnswer, type SiteConfig } from './api.js';

/** What the product page shows. */
export interface ProductRequest {
  refId: string;
  /** The customer id typed (or chosen) by the user; `''` when none. */
  customerId: string;
  /** Every method, in the order shown. */
  methods: readonly string[];
  /** The methods called only with a customer id. */
  customerMethods: readonly string[];
}

/** One method's outcome: an answer, an error, or not called for want of a customer id. */
type MethodOutcome = { answer: RecommendAnswer } | { error: string } | { needsCustomer: true };

/** The thumbnail of a product: its image, or an empty box of the same size so the rows line up. */
function thumbnail(site: SiteConfig, product: ProductRecord | undefined): string {
  const src = imageUrl(product?.[site.displayFields.image]);
  return src ? `<img class="thumb" src="${esc(src)}" alt="" loading="lazy">` : '<span class="thumb" aria-hidden="true"></span>';
}

/** The title of a product, or its refId when the catalog does not hold it (any more). */
function titleOf(site: SiteConfig, refId: string, product: ProductRecord | undefined): string {
  const title = product?.[site.displayFields.title];
  return typeof title === 'string' && title !== '' ? title : refId;
}

/** ` · price` of a product, or nothing when it has no price. */
function priceHtml(site: SiteConfig, product: ProductRecord | undefined): string {
  const price = product?.[site.displayFields.price];
  return price !== undefined ? ` · <span class="price">${esc(formatNumber(price))}</span>` : '';
}

/** One item: thumbnail, title (opens the product), refId and price. */
function itemHtml(site: SiteConfig, refId: string, products: ReadonlyMap<string, ProductRecord>): string {
  const product = products.get(refId);
  return `${thumbnail(site, product)}<span class="item-text"><button type="button" class="link open" data-ref="${esc(refId)}">${esc(titleOf(site, refId, product))}</button>
    <span class="meta"><code>${esc(refId)}</code>${priceHtml(site, product)}${product ? '' : ' · not in the catalog'}</span></span>`;
}

function methodHtml(site: SiteConfig, outcome: MethodOutcome, products: ReadonlyMap<string, ProductRecord>): string {
  if ('needsCustomer' in outcome) {
    const demo = site.demoCustomers && site.demoCustomers.length > 0 ? ', or use a demo customer' : '';
    return `<p class="needs-customer">Needs a customer id: type one above${demo}.</p>`;
  }
  if ('error' in outcome) return `<p class="error">${esc(outcome.error)}</p>`;
  const { answer } = outcome;
  if (answer.payload.length === 0) return '<p class="empty">No items (every tactic of the cascade came back empty).</p>';
  const rows = answer.payload.map((ref, i) => {
    const slot = answer.slots?.[i];
    const badges = `${slot?.retailMedia ? '<span class="badge sponsored">sponsored</span>' : ''}${slot?.retailBoost ? '<span class="badge boost">boost</span>' : ''}`;
    return `<li class="item">${itemHtml(site, ref, products)}<span class="slot"><span class="tactic" title="tactic ${esc(slot?.tacticId)}">${esc(slot?.tacticLabel ?? '—')}</span>${badges}</span></li>`;
  });
  return `<ol class="recs">${rows.join('')}</ol>`;
}

/** The message of a failed call (an unexpected failure keeps its own message, and is also logged for the developer). */
function messageOf(err: unknown): string {
  if (!(err instanceof ApiError)) console.error(err);
  return (err as Error).message;
}

/** The number of the latest {@link showProduct} call: an earlier call whose answers arrive later draws nothing. */
let latestShow = 0;

/** Shows the recommendations of every method and the bundles for the product, each item with its catalog record. */
export async function showProduct(conn: Connection, request: ProductRequest): Promise<void> {
  const { site } = conn;
  const { refId, customerId } = request;
  const show = ++latestShow;
  const summary = document.getElementById('product-summary')!;
  summary.innerHTML = `<div class="product-card"><h2>${esc(refId)}</h2><p class="meta">loading…</p></div>`;
  const grid = document.getElementById('recommendations')!;
  const cards = request.methods.map((method) => {
    const card = document.createElement('section');
    card.className = 'card method';
    card.dataset.method = method;
    card.setAttribute('aria-label', method);
    card.innerHTML = `<h3>${esc(method)}</h3><p class="loading">loading…</p>`;
    return { method, card };
  });
  grid.replaceChildren(...cards.map((c) => c.card));
  const bundleTarget = document.getElementById('bundles')!;
  bundleTarget.innerHTML = '<p class="loading">loading…</p>';

  const [outcomes, bundleOutcome] = await Promise.all([
    Promise.all(cards.map(async ({ method }): Promise<MethodOutcome> => {
      if (!customerId && request.customerMethods.includes(method)) return { needsCustomer: true };
      try {
        return { answer: await recommend(site, method, refId, customerId) };
      } catch (err) {
        return { error: messageOf(err) };
      }
    })),
    bundles(site, refId).then((answer) => ({ answer }), (err: unknown) => ({ error: messageOf(err) })),
  ]);

  const shown = [refId, ...outcomes.flatMap((o) => ('answer' in o ? o.answer.payload : [])), ...('answer' in bundleOutcome ? bundleOutcome.answer.payload.flat() : [])];
  let products: ReadonlyMap<string, ProductRecord> = new Map();
  let lookupError = '';
  try {
    products = await productsByRef(conn, shown);
  } catch (err) {
    lookupError = `The products' titles could not be read: ${messageOf(err)}`;
  }
  if (show !== latestShow) return; // another product (or customer) was opened meanwhile: its call draws the page

  const product = products.get(refId);
  summary.innerHTML = `<div class="product-card">${thumbnail(site, product)}<div><h2>${esc(titleOf(site, refId, product))}</h2>
    <p class="meta">refId <code>${esc(refId)}</code>${priceHtml(site, product)}${customerId ? ` · customer <code>${esc(customerId)}</code>` : ''}</p>
    ${lookupError ? `<p class="error">${esc(lookupError)}</p>` : ''}</div></div>`;
  cards.forEach(({ method, card }, i) => {
    card.innerHTML = `<h3>${esc(method)}</h3>${methodHtml(site, outcomes[i]!, products)}`;
  });
  if ('error' in bundleOutcome) {
    bundleTarget.innerHTML = `<p class="error">${esc(bundleOutcome.error)}</p>`;
    return;
  }
  const sets = bundleOutcome.answer.payload;
  bundleTarget.innerHTML = sets.length > 0
    ? `<ol class="bundles">${sets.map((b) => `<li>${b.map((ref) => `<span class="item">${itemHtml(site, ref, products)}</span>`).join('<span class="plus" aria-hidden="true">+</span>')}</li>`).join('')}</ol>`
    : '<p class="empty">No bundles.</p>';
}
