/** The product page: every recommendation method with the tactic that served each item, and bundles. */
import { bundles, esc, recommend, type Connection } from './api.js';

/** Shows the recommendations of every method and the bundles for `refId`. */
export async function showProduct(conn: Connection, methods: readonly string[], refId: string, title: string, customerId: string): Promise<void> {
  document.getElementById('product-summary')!.innerHTML = `<div class="product-card"><h2>${esc(title || refId)}</h2><p class="meta">refId <code>${esc(refId)}</code></p></div>`;
  const grid = document.getElementById('recommendations')!;
  grid.replaceChildren();
  const cards = methods.map((method) => {
    const card = document.createElement('section');
    card.className = 'card method';
    card.dataset.method = method;
    card.innerHTML = `<h3>${esc(method)}</h3><p class="loading">loading…</p>`;
    grid.append(card);
    return { method, card };
  });
  await Promise.all([
    ...cards.map(async ({ method, card }) => {
      try {
        const answer = await recommend(conn.site, method, refId, customerId);
        const rows = answer.payload.map((ref, i) => {
          const slot = answer.slots?.[i];
          const badges = `${slot?.retailMedia ? '<span class="badge sponsored">sponsored</span>' : ''}${slot?.retailBoost ? '<span class="badge boost">boost</span>' : ''}`;
          return `<li><button type="button" class="link open" data-ref="${esc(ref)}">${esc(ref)}</button>
            <span class="tactic" title="tactic ${esc(slot?.tacticId)}">${esc(slot?.tacticLabel ?? '—')}</span>${badges}</li>`;
        });
        card.innerHTML = `<h3>${esc(method)}</h3>${rows.length > 0 ? `<ol class="recs">${rows.join('')}</ol>` : '<p class="empty">No items (every tactic of the cascade came back empty).</p>'}`;
      } catch (err) {
        card.innerHTML = `<h3>${esc(method)}</h3><p class="error">${esc((err as Error).message)}</p>`;
      }
    }),
    (async () => {
      const target = document.getElementById('bundles')!;
      try {
        const answer = await bundles(conn.site, refId);
        target.innerHTML = answer.payload.length > 0
          ? `<ol class="bundles">${answer.payload.map((b) => `<li>${b.map((ref) => `<button type="button" class="link open" data-ref="${esc(ref)}">${esc(ref)}</button>`).join(' + ')}</li>`).join('')}</ol>`
          : '<p class="empty">No bundles.</p>';
      } catch (err) {
        target.innerHTML = `<p class="error">${esc((err as Error).message)}</p>`;
      }
    })(),
  ]);
}
