/**
 * The reports page: attribution by recommender, campaign, search model and ad set, revenue converted from
 * clicks on search queries and recommendation methods, retail-media spend, price-beat discounts, and the
 * top and no-result searches — each as a table and a Chart.js bar plot.
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { admin, ApiError, esc, type Connection } from './api.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

interface Line { key: string; revenue: number; orders: number; units: number }
interface Attribution {
  totals: { revenue: number; orders: number; units: number; attributedRevenue: number; clickAttributedRevenue: number };
  byRecommender: Line[]; byCampaign: Line[]; byAtsModel: Line[]; byTactic: Line[]; bySearchQuery: Line[]; byRecommendationMethod: Line[];
  retailMedia: { adSetId: string; units: number; revenue: number; spend: number; flagged: number }[];
  priceBeat: { code: string; discount: number; orders: number; reused: number }[];
}
interface Searches { top: { query: string; count: number; avgResults: number }[]; noResults: { query: string; count: number }[] }

const charts: Chart[] = [];
const money = (n: number) => n.toLocaleString('en', { maximumFractionDigits: 2, minimumFractionDigits: 2 });

/** One report card: a title, a bar plot of `values` by `labels`, and a table of the rows. */
function card(id: string, title: string, labels: string[], values: number[], valueLabel: string, table: { head: string[]; rows: (string | number)[][] }): HTMLElement {
  const section = document.createElement('section');
  section.className = 'card report';
  section.id = id;
  if (labels.length === 0) {
    section.innerHTML = `<h3>${esc(title)}</h3><p class="empty">Nothing yet.</p>`;
    return section;
  }
  section.innerHTML = `<h3>${esc(title)}</h3><div class="plot"><canvas aria-label="${esc(title)} plot" role="img"></canvas></div>
    <table><thead><tr>${table.head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead>
    <tbody>${table.rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
  const canvas = section.querySelector('canvas')!;
  queueMicrotask(() => charts.push(new Chart(canvas, {
    type: 'bar',
    data: { labels: labels.map((l) => (l.length > 24 ? `${l.slice(0, 22)}…` : l)), datasets: [{ label: valueLabel, data: values, backgroundColor: '#4f6bed', borderRadius: 3 }] },
    options: { indexAxis: 'y', animation: false, maintainAspectRatio: false, plugins: { legend: { display: false } }, scales: { x: { beginAtZero: true } } },
  })));
  return section;
}

function lines(id: string, title: string, list: Line[]): HTMLElement {
  const top = list.slice(0, 10);
  return card(id, title, top.map((l) => l.key), top.map((l) => l.revenue), 'revenue', {
    head: ['key', 'revenue', 'orders', 'units'], rows: top.map((l) => [l.key, money(l.revenue), l.orders, l.units]),
  });
}

/** Loads and draws every report of the connected website. */
export async function showReports(conn: Connection): Promise<void> {
  const target = document.getElementById('reports')!;
  for (const c of charts.splice(0)) c.destroy();
  if (!conn.adminToken) {
    target.innerHTML = '<p class="error">Type the admin token above to see the reports.</p>';
    return;
  }
  target.innerHTML = '<p class="loading">loading…</p>';
  const [attribution, searches] = await Promise.allSettled([admin<Attribution>(conn, 'reports/attribution'), admin<Searches>(conn, 'reports/searches?limit=10')]);
  target.replaceChildren();
  if (attribution.status === 'rejected') {
    target.innerHTML = `<p class="error">Attribution: ${esc((attribution.reason as Error).message)}</p>`;
  } else {
    const a = attribution.value;
    const totals = document.createElement('section');
    totals.className = 'card totals';
    totals.id = 'report-totals';
    totals.innerHTML = `<h3>Totals</h3><dl>
      <dt>Revenue</dt><dd data-total="revenue">${money(a.totals.revenue)}</dd>
      <dt>Attributed revenue</dt><dd data-total="attributedRevenue">${money(a.totals.attributedRevenue)}</dd>
      <dt>Revenue from clicks</dt><dd data-total="clickAttributedRevenue">${money(a.totals.clickAttributedRevenue)}</dd>
      <dt>Orders</dt><dd data-total="orders">${a.totals.orders}</dd><dt>Units</dt><dd data-total="units">${a.totals.units}</dd></dl>`;
    target.append(
      totals,
      lines('report-recommenders', 'Attributed revenue by recommender', a.byRecommender),
      lines('report-campaigns', 'Attributed revenue by campaign', a.byCampaign),
      lines('report-models', 'Attributed revenue by search model', a.byAtsModel),
      lines('report-click-queries', 'Revenue from clicks by search query', a.bySearchQuery),
      lines('report-click-methods', 'Revenue from clicks by recommendation method', a.byRecommendationMethod),
      card('report-adsets', 'Retail-media spend by ad set', a.retailMedia.map((r) => r.adSetId), a.retailMedia.map((r) => r.spend), 'spend', {
        head: ['ad set', 'spend', 'revenue', 'units', 'flagged'], rows: a.retailMedia.map((r) => [r.adSetId, money(r.spend), money(r.revenue), r.units, r.flagged]),
      }),
      card('report-pricebeat', 'Price-beat discounts', a.priceBeat.map((p) => p.code), a.priceBeat.map((p) => p.discount), 'discount', {
        head: ['code', 'discount', 'orders', 'reused'], rows: a.priceBeat.map((p) => [p.code, money(p.discount), p.orders, p.reused]),
      }),
    );
  }
  if (searches.status === 'rejected') {
    const err = searches.reason as Error;
    const section = document.createElement('section');
    section.className = 'card report';
    section.id = 'report-searches';
    section.innerHTML = `<h3>Searches</h3><p class="error">${esc(err instanceof ApiError && err.status === 404 ? 'This server has no search analytics (GET …/reports/searches).' : err.message)}</p>`;
    target.append(section);
  } else {
    const s = searches.value;
    target.append(
      card('report-top-searches', 'Top searches', s.top.map((t) => t.query || '(empty)'), s.top.map((t) => t.count), 'searches', {
        head: ['query', 'searches', 'avg. results'], rows: s.top.map((t) => [t.query || '(empty)', t.count, Math.round(t.avgResults)]),
      }),
      card('report-no-results', 'Searches without results', s.noResults.map((t) => t.query), s.noResults.map((t) => t.count), 'searches', {
        head: ['query', 'searches'], rows: s.noResults.map((t) => [t.query, t.count]),
      }),
    );
  }
}
