/**
 * The insights page: search analytics (`GET …/reports/searches`: top, no-result and no-click queries,
 * click-through, conversion), recommendation click-through by method and tactic (`GET
 * …/reports/recommendations`) and attribution (`GET …/reports/attribution`), all for the date range
 * chosen at the top. Rankings are drawn as SVG bars (a look tells more than the numbers; the table
 * under each plot keeps them).
 */
import { admin, ApiError, esc, type Connection } from './api.js';

interface Line { key: string; revenue: number; orders: number; units: number }
interface Attribution {
  currency: string | null;
  otherCurrencies: { currency: string; orders: number; units: number; revenue: number }[];
  totals: { revenue: number; orders: number; units: number; attributedRevenue: number; clickAttributedRevenue: number };
  byRecommender: Line[]; byCampaign: Line[]; byAtsModel: Line[]; byTactic: Line[]; bySearchQuery: Line[]; byRecommendationMethod: Line[];
  byClickPosition: { kind: string; position: number; revenue: number; orders: number; units: number }[];
  retailMedia: { adSetId: string; units: number; revenue: number; spend: number; flagged: number }[];
  priceBeat: { code: string; discount: number; orders: number; reused: number }[];
}
interface SearchQuery { query: string; count: number; avgResults: number; clicks: number; ctr: number; avgClickPosition: number | null; conversions: number; conversionRate: number; revenue: number }
interface Searches { top: SearchQuery[]; noResults: { query: string; count: number }[]; noClicks: { query: string; count: number }[] }
interface Tactic { tactic: string; items: number; clicks: number; ctr: number | null; conversions: number; revenue: number }
interface Recommendations { methods: { method: string; served: number; items: number; clicks: number; ctr: number | null; conversions: number; revenue: number; tactics: Tactic[] }[] }

/** A report's window: ISO date-times, each optional (none: all time). */
export interface ReportRange { from?: string; to?: string }

/** Rows a plot and its table show. */
const ROWS = 10;
const DAY_MS = 86_400_000;

const money = (n: number) => n.toLocaleString('en', { maximumFractionDigits: 2, minimumFractionDigits: 2 });
const percent = (n: number) => `${(n * 100).toFixed(1)}%`;
/** A rate that may not exist (nothing served in the window: the report says null, not 0 %). */
const rate = (n: number | null) => (n === null ? 'no data' : percent(n));
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** `YYYY-MM-DD` of a time, in UTC (the reports' dates are UTC days). */
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The window of the UTC days `from` to `to` (`YYYY-MM-DD`, both included; an empty one is open). */
export function rangeOfDays(from: string, to: string): ReportRange {
  return { ...(from && { from: `${from}T00:00:00Z` }), ...(to && { to: `${to}T23:59:59Z` }) };
}

/** The query string of a range (`?from=…&to=…`, or nothing), with `extra` parameters. */
function query(range: ReportRange, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({ ...extra, ...(range.from && { from: range.from }), ...(range.to && { to: range.to }) }).toString();
  return q ? `?${q}` : '';
}

/** One bar of a plot: its label, its length, and the text shown after it. */
export interface Bar { label: string; value: number; text: string }

/**
 * Horizontal bars in SVG, longest = `max` (default the largest value): one row per bar, its label on
 * the left (cut at 24 characters, 40 when `wide`; the full label is its tooltip), its value after it. The plot's
 * accessible name is `title`; its figures are in the table beside it.
 */
export function barsSvg(title: string, bars: readonly Bar[], max?: number, wide = false): string {
  const rowHeight = 20;
  // A wide plot has room for longer labels (a tactic and its method).
  const labelWidth = wide ? 260 : 160;
  const labelChars = wide ? 40 : 24;
  const barWidth = 200;
  const width = labelWidth + barWidth + 80;
  const longest = max ?? Math.max(0, ...bars.map((b) => b.value));
  const rows = bars.map((b, i) => {
    const length = longest > 0 ? Math.max(b.value > 0 ? 1 : 0, (b.value / longest) * barWidth) : 0;
    const label = b.label.length > labelChars ? `${b.label.slice(0, labelChars - 2)}…` : b.label;
    return `<g transform="translate(0 ${i * rowHeight})"><text x="${labelWidth - 6}" y="14" text-anchor="end"><title>${esc(b.label)}</title>${esc(label)}</text>
      <rect class="bar" x="${labelWidth}" y="4" width="${length.toFixed(1)}" height="12" rx="2"></rect>
      <text class="bar-value" x="${(labelWidth + length + 4).toFixed(1)}" y="14">${esc(b.text)}</text></g>`;
  });
  return `<svg class="bars" viewBox="0 0 ${width} ${bars.length * rowHeight + 4}" role="img" aria-label="${esc(title)}">${rows.join('')}</svg>`;
}

/** How a card is drawn: its bars' full length (default: the longest bar), across the whole page (a wide table). */
interface CardOptions { max?: number; wide?: boolean }

/** One report card: a title, a plot, and a table; "Nothing in this period." without rows. */
function card(id: string, title: string, bars: readonly Bar[], table: { head: string[]; rows: (string | number)[][] }, options: CardOptions = {}): HTMLElement {
  const section = document.createElement('section');
  section.className = options.wide ? 'card report wide' : 'card report';
  section.id = id;
  section.setAttribute('aria-labelledby', `${id}-title`);
  const heading = `<h3 id="${id}-title">${esc(title)}</h3>`;
  if (table.rows.length === 0) {
    section.innerHTML = `${heading}<p class="empty">Nothing in this period.</p>`;
    return section;
  }
  section.innerHTML = `${heading}${barsSvg(`${title} plot`, bars, options.max, options.wide)}
    <table><thead><tr>${table.head.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead>
    <tbody>${table.rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
  return section;
}

/** A card of attribution lines: revenue by key. */
function lines(id: string, title: string, list: Line[]): HTMLElement {
  const top = list.slice(0, ROWS);
  return card(id, title, top.map((l) => ({ label: l.key, value: l.revenue, text: money(l.revenue) })), {
    head: ['key', 'revenue', 'orders', 'units'], rows: top.map((l) => [l.key, money(l.revenue), l.orders, l.units]),
  });
}

/** A failed report, in place of its cards. */
function failure(id: string, title: string, err: unknown): HTMLElement {
  const section = document.createElement('section');
  section.className = 'card report';
  section.id = id;
  const message = err instanceof ApiError && err.status === 404 ? `This server has no ${title.toLowerCase()} report.` : (err as Error).message;
  section.innerHTML = `<h3>${esc(title)}</h3><p class="error">${esc(message)}</p>`;
  return section;
}

function searchCards(s: Searches): HTMLElement[] {
  const top = s.top.slice(0, ROWS);
  const named = (q: string) => q || '(empty)';
  return [
    card('report-top-searches', 'Top searches', top.map((t) => ({ label: named(t.query), value: t.count, text: String(t.count) })), {
      head: ['query', 'searches', 'avg. results', 'clicks', 'avg. position', 'revenue'],
      rows: top.map((t) => [named(t.query), t.count, Math.round(t.avgResults), t.clicks, t.avgClickPosition === null ? '—' : t.avgClickPosition.toFixed(1), money(t.revenue)]),
    }, { wide: true }),
    card('report-search-ctr', 'Click-through and conversion of the top searches', top.map((t) => ({ label: named(t.query), value: t.ctr, text: `${percent(t.ctr)} · ${percent(t.conversionRate)}` })), {
      head: ['query', 'CTR', 'conversion', 'conversions'], rows: top.map((t) => [named(t.query), percent(t.ctr), percent(t.conversionRate), t.conversions]),
    }, { max: 1 }),
    card('report-no-results', 'Searches without results', s.noResults.slice(0, ROWS).map((t) => ({ label: t.query, value: t.count, text: String(t.count) })), {
      head: ['query', 'searches'], rows: s.noResults.slice(0, ROWS).map((t) => [t.query, t.count]),
    }),
    card('report-no-clicks', 'Searches without clicks', s.noClicks.slice(0, ROWS).map((t) => ({ label: t.query, value: t.count, text: String(t.count) })), {
      head: ['query', 'searches'], rows: s.noClicks.slice(0, ROWS).map((t) => [t.query, t.count]),
    }),
  ];
}

function recommendationCards(r: Recommendations): HTMLElement[] {
  const methods = r.methods.slice(0, ROWS);
  // Every method's tactics, the most served first.
  const tactics = r.methods.flatMap((m) => m.tactics.map((t) => ({ ...t, method: m.method }))).sort((a, b) => b.items - a.items).slice(0, 2 * ROWS);
  return [
    card('report-rec-methods', 'Click-through by recommendation method', methods.map((m) => ({ label: m.method, value: m.ctr ?? 0, text: rate(m.ctr) })), {
      head: ['method', 'served', 'items', 'clicks', 'CTR', 'conversions', 'revenue'],
      rows: methods.map((m) => [m.method, m.served, m.items, m.clicks, rate(m.ctr), m.conversions, money(m.revenue)]),
    }, { max: 1, wide: true }),
    card('report-rec-tactics', 'Click-through by tactic (clicks / items)', tactics.map((t) => ({ label: `${t.tactic} · ${t.method}`, value: t.ctr ?? 0, text: rate(t.ctr) })), {
      head: ['tactic', 'method', 'items', 'clicks', 'CTR', 'conversions', 'revenue'],
      rows: tactics.map((t) => [t.tactic, t.method, t.items, t.clicks, rate(t.ctr), t.conversions, money(t.revenue)]),
    }, { wide: true }),
  ];
}

function attributionCards(a: Attribution): HTMLElement[] {
  const totals = document.createElement('section');
  totals.className = 'card totals';
  totals.id = 'report-totals';
  totals.setAttribute('aria-labelledby', 'report-totals-title');
  // Money is in the website's currency only; purchases in others are listed apart, never added in.
  const others = a.otherCurrencies.map((o) => `<dt>In ${esc(o.currency)} (apart)</dt><dd data-other="${esc(o.currency)}">${money(o.revenue)} · ${o.orders} orders</dd>`).join('');
  totals.innerHTML = `<h3 id="report-totals-title">Totals${a.currency === null ? ' (no currency set: purchases stating none)' : ` (${esc(a.currency)})`}</h3><dl>
    <dt>Revenue</dt><dd data-total="revenue">${money(a.totals.revenue)}</dd>
    <dt>Attributed revenue</dt><dd data-total="attributedRevenue">${money(a.totals.attributedRevenue)}</dd>
    <dt>Revenue from clicks</dt><dd data-total="clickAttributedRevenue">${money(a.totals.clickAttributedRevenue)}</dd>
    <dt>Orders</dt><dd data-total="orders">${a.totals.orders}</dd><dt>Units</dt><dd data-total="units">${a.totals.units}</dd>${others}</dl>
    ${barsSvg('Share of revenue attributed', [
      { label: 'attributed', value: a.totals.attributedRevenue, text: a.totals.revenue > 0 ? percent(a.totals.attributedRevenue / a.totals.revenue) : '—' },
      { label: 'from clicks', value: a.totals.clickAttributedRevenue, text: a.totals.revenue > 0 ? percent(a.totals.clickAttributedRevenue / a.totals.revenue) : '—' },
    ], a.totals.revenue)}`;
  const positions = a.byClickPosition.slice(0, 2 * ROWS);
  return [
    totals,
    lines('report-recommenders', 'Attributed revenue by recommender', a.byRecommender),
    lines('report-tactics', 'Attributed revenue by tactic', a.byTactic),
    lines('report-campaigns', 'Attributed revenue by campaign', a.byCampaign),
    lines('report-models', 'Attributed revenue by search model', a.byAtsModel),
    lines('report-click-queries', 'Revenue from clicks by search query', a.bySearchQuery),
    lines('report-click-methods', 'Revenue from clicks by recommendation method', a.byRecommendationMethod),
    card('report-click-positions', 'Revenue from clicks by position', positions.map((p) => ({ label: `${p.kind} #${p.position}`, value: p.revenue, text: money(p.revenue) })), {
      head: ['list', 'position', 'revenue', 'orders'], rows: positions.map((p) => [p.kind, p.position, money(p.revenue), p.orders]),
    }, { wide: true }),
    card('report-adsets', 'Retail-media spend by ad set', a.retailMedia.map((r) => ({ label: r.adSetId, value: r.spend, text: money(r.spend) })), {
      head: ['ad set', 'spend', 'revenue', 'units', 'flagged'], rows: a.retailMedia.map((r) => [r.adSetId, money(r.spend), money(r.revenue), r.units, r.flagged]),
    }),
    card('report-pricebeat', 'Price-beat discounts', a.priceBeat.slice(0, ROWS).map((p) => ({ label: p.code, value: p.discount, text: money(p.discount) })), {
      head: ['code', 'discount', 'orders', 'reused'], rows: a.priceBeat.slice(0, ROWS).map((p) => [p.code, money(p.discount), p.orders, p.reused]),
    }),
  ];
}

/** The range form's window now. */
function chosenRange(): ReportRange {
  return rangeOfDays($<HTMLInputElement>('range-from').value, $<HTMLInputElement>('range-to').value);
}

/** Sets the date inputs from a preset (days back from today, or all time). */
function applyPreset(preset: string): void {
  const days = Number(preset);
  if (preset === 'custom') return;
  const today = Date.now();
  $<HTMLInputElement>('range-from').value = Number.isFinite(days) ? day(today - (days - 1) * DAY_MS) : '';
  $<HTMLInputElement>('range-to').value = Number.isFinite(days) ? day(today) : '';
}

let connection: Connection | undefined;
/** The number of the latest {@link draw}: an earlier one whose answers arrive later draws nothing. */
let latestDraw = 0;

/** Draws the range form and the three report sections once. */
function mount(): void {
  if (document.getElementById('report-range')) return;
  $('reports').innerHTML = `<form id="report-range" class="product-form range" aria-label="Date range of the reports">
      <label>Period <select id="range-preset" aria-label="Period"><option value="7">Last 7 days</option><option value="30" selected>Last 30 days</option>
        <option value="90">Last 90 days</option><option value="all">All time</option><option value="custom">Custom</option></select></label>
      <label>From <input id="range-from" type="date"></label>
      <label>To <input id="range-to" type="date"></label>
      <button type="submit">Show</button>
      <span class="hint">UTC days, both included; every report below covers them.</span>
    </form>
    <div id="reports-body"></div>`;
  applyPreset('30');
  $('range-preset').onchange = () => { applyPreset($<HTMLSelectElement>('range-preset').value); void draw(); };
  const custom = () => { $<HTMLSelectElement>('range-preset').value = 'custom'; };
  $('range-from').oninput = custom;
  $('range-to').oninput = custom;
  $('report-range').onsubmit = (e) => { e.preventDefault(); void draw(); };
}

/** Loads and draws every report for the chosen range. */
async function draw(): Promise<void> {
  const conn = connection;
  const target = $('reports-body');
  if (!conn?.adminToken) {
    target.innerHTML = '<p class="error">Type the admin token above to see the reports.</p>';
    return;
  }
  const range = chosenRange();
  const mine = ++latestDraw;
  target.innerHTML = '<p class="loading">loading…</p>';
  const [searches, recommendations, attribution] = await Promise.allSettled([
    admin<Searches>(conn, `reports/searches${query(range, { limit: String(2 * ROWS) })}`),
    admin<Recommendations>(conn, `reports/recommendations${query(range)}`),
    admin<Attribution>(conn, `reports/attribution${query(range)}`),
  ]);
  if (mine !== latestDraw) return; // another range or connection was chosen meanwhile: its draw shows
  const section = (title: string, cards: HTMLElement[]) => {
    const wrap = document.createElement('section');
    wrap.className = 'insights';
    wrap.setAttribute('aria-label', title);
    wrap.innerHTML = `<h2>${esc(title)}</h2>`;
    const grid = document.createElement('div');
    grid.className = 'grid';
    grid.append(...cards);
    wrap.append(grid);
    return wrap;
  };
  target.replaceChildren(
    section('Searches', searches.status === 'fulfilled' ? searchCards(searches.value) : [failure('report-searches', 'Searches', searches.reason)]),
    section('Recommendations', recommendations.status === 'fulfilled' ? recommendationCards(recommendations.value) : [failure('report-recommendations', 'Recommendations', recommendations.reason)]),
    section('Attribution', attribution.status === 'fulfilled' ? attributionCards(attribution.value) : [failure('report-attribution', 'Attribution', attribution.reason)]),
  );
}

/** Shows the insights of the connected website for the range chosen (the last 30 days at first). */
export async function showReports(conn: Connection): Promise<void> {
  connection = conn;
  mount();
  await draw();
}
