/**
 * The experiments page: the website's experiments (stop, delete), a form starting one from a settings
 * override (search) or a cascade (recommendations), and an experiment's report with each metric's 95 %
 * interval drawn as a bar with whiskers, the comparisons with the control and their tests. Only the
 * public admin API (docs/http-api.md, "Experiments"), with the admin token the user typed.
 */
import { admin, esc, getJson, type Connection } from './api.js';

/** A variant's figure: null where there is nothing to estimate from (no users; one user's mean has no interval). */
export interface Estimate { value: number | null; low: number | null; high: number | null; interval: string }
/** One comparison with the control: a figure that cannot be computed is null, and `note` says why (decision 0073). */
export interface Comparison {
  relativeDifference: number | null; low: number | null; high: number | null; interval: string; pValue: number | null; test: string; significant: boolean; note?: string;
}
interface Experiment { id: string; name: string; kind: string; method: string; status: string; from: string; until?: string; variants: { name: string; weight: number }[] }
interface VariantReport {
  name: string; weight: number; users: number; searches?: number; served?: number; clicks: number; ctr: Estimate; conversions: number;
  conversionRate: Estimate; revenue: number; revenuePerUser: Estimate;
  vsControl?: { ctr: Comparison; conversionRate: Comparison; revenuePerUser: Comparison };
  tactics?: { tactic: string; served: number; clicks: number; conversions: number; revenue: number }[];
}
export interface Report extends Experiment {
  minUsers: { ctr: number | null; conversionRate: number | null };
  variants: VariantReport[];
  interleaving?: { credits: Record<string, number>; users: number; preferring: Record<string, number>; preferred: string | null; pValue: number | null; test: string; note?: string };
}

const METRICS = [['ctr', 'CTR'], ['conversionRate', 'Conversion rate'], ['revenuePerUser', 'Revenue per user']] as const;
const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
const num = (x: number) => x.toLocaleString('en', { maximumFractionDigits: 2 });
/** A variant's figure in a table cell: a null one reads as the API means it, never "0.00 %". */
const figure = (x: number | null, format: (x: number) => string) => (x === null ? NO_USERS : format(x));
/** What a variant's null figure reads as. */
const NO_USERS = 'no data yet';

/** An admin call with a method and a JSON body. */
function call<T>(conn: Connection, path: string, method: string, body?: unknown): Promise<T> {
  return getJson(`/admin/v1/websites/${encodeURIComponent(conn.site.websiteId)}/${path}`, {
    method, headers: { authorization: `Bearer ${conn.adminToken}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

/**
 * One metric of every variant as horizontal bars (the estimate) with whiskers (the 95 % interval), in
 * SVG: the scale runs from 0 to the highest interval end.
 */
function intervalPlot(title: string, variants: readonly VariantReport[], pick: (v: VariantReport) => Estimate, format: (x: number) => string): string {
  const rowHeight = 26;
  const width = 420;
  const labelWidth = 110;
  const max = Math.max(...variants.map((v) => pick(v).high ?? pick(v).value ?? 0), 1e-9);
  const x = (value: number) => labelWidth + (Math.max(0, value) / max) * (width - labelWidth - 70);
  const rows = variants.map((v, i) => {
    const e = pick(v);
    const y = 8 + i * rowHeight;
    const label = `<text x="0" y="${y + 13}" class="label">${esc(v.name.length > 14 ? `${v.name.slice(0, 13)}…` : v.name)}</text>`;
    // No bar for a figure there is nothing to estimate from, and no whiskers for an interval that is not defined.
    if (e.value === null) return `${label}<text x="${labelWidth}" y="${y + 13}" class="value">${NO_USERS}</text>`;
    const bar = `<rect x="${labelWidth}" y="${y + 3}" width="${x(e.value) - labelWidth}" height="14" rx="2" class="${i === 0 ? 'control' : 'variant'}"></rect>`;
    const whiskers = e.low === null || e.high === null ? '' : `<line x1="${x(e.low)}" x2="${x(e.high)}" y1="${y + 10}" y2="${y + 10}" class="whisker"></line>
      <line x1="${x(e.low)}" x2="${x(e.low)}" y1="${y + 5}" y2="${y + 15}" class="whisker"></line>
      <line x1="${x(e.high)}" x2="${x(e.high)}" y1="${y + 5}" y2="${y + 15}" class="whisker"></line>`;
    return `${label}${bar}${whiskers}<text x="${x(e.high ?? e.value) + 6}" y="${y + 13}" class="value">${esc(format(e.value))}</text>`;
  }).join('');
  return `<figure class="interval-plot"><figcaption>${esc(title)} (bars: estimate; whiskers: ${esc(variants[0] === undefined ? '95 % interval' : pick(variants[0]).interval)})</figcaption>
    <svg viewBox="0 0 ${width} ${16 + variants.length * rowHeight}" role="img" aria-label="${esc(title)} per variant">${rows}</svg></figure>`;
}

/** What a null figure reads as: never "0 %" or "NaN" (decision 0073). */
const NOT_COMPUTABLE = 'not computable';

/** The relative difference with its 95 % interval, in percent; a null end reads as the API means it. */
function differenceText(c: Comparison): string {
  if (c.relativeDifference === null) return NOT_COMPUTABLE;
  const percent = (x: number) => (x * 100).toFixed(1);
  const interval = c.low === null ? `interval ${NOT_COMPUTABLE}` : `[${percent(c.low)}, ${c.high === null ? 'no upper end' : percent(c.high)}]`;
  return `${percent(c.relativeDifference)} % ${interval}`;
}

/**
 * A comparison as three table cells (difference with interval, p-value, verdict), the note (why a figure
 * is not computable, or which interval method was used) under the difference.
 */
export function comparisonCells(c: Comparison): string {
  const note = c.note === undefined ? '' : `<br><small class="hint">${esc(c.note)}</small>`;
  return `<td title="${esc(c.interval)}">${esc(differenceText(c))}${note}</td>
    <td class="p-value" title="${esc(c.test)}">${esc(c.pValue === null ? NOT_COMPUTABLE : c.pValue.toPrecision(3))}</td><td>${c.significant ? '<strong>significant</strong>' : '—'}</td>`;
}

/** An interleaving report: credits and preferences per variant, then the sign test (a null p-value as "not computable" with its note). */
export function interleavingHtml(i: NonNullable<Report['interleaving']>): string {
  const note = i.note === undefined ? '' : `<br><small class="hint">${esc(i.note)}</small>`;
  return `<table><thead><tr><th>variant</th><th>clicks credited</th><th>users preferring</th></tr></thead><tbody>
      ${Object.keys(i.credits).map((v) => `<tr><td>${esc(v)}</td><td>${i.credits[v]}</td><td>${i.preferring[v] ?? 0}</td></tr>`).join('')}</tbody></table>
      <p>${i.users} users · p = ${esc(i.pValue === null ? NOT_COMPUTABLE : i.pValue.toPrecision(3))} (${esc(i.test)}) · preferred: <strong>${esc(i.preferred ?? 'none yet')}</strong>${note}</p>`;
}

/** The report of one experiment. */
export function reportHtml(r: Report): string {
  const head = `<h3>${esc(r.name)} <small>${esc(`${r.kind} · ${r.method} · ${r.status} · from ${r.from}${r.until ? ` until ${r.until}` : ''}`)}</small></h3>`;
  if (r.interleaving) return `${head}${interleavingHtml(r.interleaving)}`;
  const served = r.kind === 'search' ? 'searches' : 'served';
  const table = `<table><thead><tr><th>variant</th><th>users</th><th>${served}</th><th>clicks</th><th>CTR</th><th>conversions</th><th>conversion rate</th><th>revenue</th><th>revenue / user</th></tr></thead>
    <tbody>${r.variants.map((v) => `<tr><td>${esc(v.name)}</td><td>${v.users}</td><td>${v.searches ?? v.served ?? 0}</td><td>${v.clicks}</td><td>${figure(v.ctr.value, pct)}</td>
      <td>${v.conversions}</td><td>${figure(v.conversionRate.value, pct)}</td><td>${num(v.revenue)}</td><td>${figure(v.revenuePerUser.value, num)}</td></tr>`).join('')}</tbody></table>`;
  const horizon = `<p class="hint">Users needed per variant (10 % relative effect, 80 % power): CTR ${r.minUsers.ctr ?? '—'}, conversion rate and revenue ${r.minUsers.conversionRate ?? '—'}.
    "significant" appears only once every variant has them (a fixed horizon: peeking earlier cannot inflate false positives).</p>`;
  const vs = r.variants.filter((v) => v.vsControl).map((v) => `<tr><td>${esc(v.name)}</td>${METRICS.map(([m]) => comparisonCells(v.vsControl![m])).join('')}</tr>`).join('');
  const comparisons = vs === '' ? '' : `<table class="comparisons"><thead><tr><th rowspan="2">vs control</th>${METRICS.map(([, label]) => `<th colspan="3">${label}</th>`).join('')}</tr>
    <tr>${METRICS.map(() => '<th>difference [95 %]</th><th>p</th><th></th>').join('')}</tr></thead><tbody>${vs}</tbody></table>`;
  const plots = `<div class="plots">${intervalPlot('CTR', r.variants, (v) => v.ctr, pct)}${intervalPlot('Conversion rate', r.variants, (v) => v.conversionRate, pct)}
    ${intervalPlot('Revenue per user', r.variants, (v) => v.revenuePerUser, num)}</div>`;
  const tactics = r.kind === 'recommendations' ? r.variants.map((v) => `<h4>${esc(v.name)}: per tactic</h4><table><thead><tr><th>tactic</th><th>served</th><th>clicks</th><th>conversions</th><th>revenue</th></tr></thead>
    <tbody>${(v.tactics ?? []).map((t) => `<tr><td>${esc(t.tactic)}</td><td>${t.served}</td><td>${t.clicks}</td><td>${t.conversions}</td><td>${num(t.revenue)}</td></tr>`).join('')}</tbody></table>`).join('') : '';
  return `${head}${table}${plots}${comparisons}${horizon}${tactics}`;
}

/** The creation body from the form: a control and one variant with the settings override or the cascade. */
function bodyFromForm(form: HTMLFormElement): unknown {
  const data = new FormData(form);
  const kind = String(data.get('kind'));
  const variant: Record<string, unknown> = { name: String(data.get('variant')) || 'variant' };
  const override = String(data.get('override')).trim();
  if (override !== '') {
    // Search: a partial settings object; recommendations: {"<Method>": {"tactics": ["<label>", …]}}.
    let parsed: unknown;
    try {
      parsed = JSON.parse(override);
    } catch (err) {
      throw new Error(`The override is not JSON: ${(err as Error).message}`);
    }
    variant[kind === 'search' ? 'settings' : 'recommendations'] = parsed;
  }
  return { name: String(data.get('name')), kind, method: String(data.get('method')), variants: [{ name: 'control' }, variant] };
}

/** Loads and draws the experiments page of the connected website. */
export async function showExperiments(conn: Connection): Promise<void> {
  const target = document.getElementById('experiments')!;
  if (!conn.adminToken) {
    target.innerHTML = '<p class="error">Type the admin token above to see the experiments.</p>';
    return;
  }
  target.innerHTML = `<section class="card"><h3>Start an experiment</h3>
    <form id="experiment-form" class="experiment-form">
      <label>Name <input name="name" required maxlength="200"></label>
      <label>Kind <select name="kind"><option value="search">search</option><option value="recommendations">recommendations</option></select></label>
      <label>Method <select name="method"><option value="ab">A/B</option><option value="interleaving">interleaving (search)</option></select></label>
      <label>Variant name <input name="variant" value="variant"></label>
      <label class="wide">Override (JSON): search — settings merged over the website's, e.g. <code>{"synonyms": [["tee", "t-shirt"]]}</code>;
        recommendations — cascades, e.g. <code>{"ProductDetail": {"tactics": ["Bought With", "Popular Items"]}}</code>
        <textarea name="override" rows="4" spellcheck="false"></textarea></label>
      <button type="submit">Start</button> <span id="experiment-error" class="error" role="alert"></span>
    </form></section>
    <section class="card"><h3>Experiments</h3><div id="experiment-list"><p class="loading">loading…</p></div></section>
    <section class="card" id="experiment-report"></section>`;
  const list = document.getElementById('experiment-list')!;
  const reportTarget = document.getElementById('experiment-report')!;
  const error = document.getElementById('experiment-error')!;
  const showReport = async (id: string) => {
    reportTarget.innerHTML = '<p class="loading">loading…</p>';
    try {
      reportTarget.innerHTML = reportHtml(await admin<Report>(conn, `experiments/${encodeURIComponent(id)}`));
    } catch (err) {
      reportTarget.innerHTML = `<p class="error">${esc((err as Error).message)}</p>`;
    }
  };
  const refresh = async () => {
    try {
      const { experiments } = await admin<{ experiments: Experiment[] }>(conn, 'experiments');
      list.innerHTML = experiments.length === 0 ? '<p class="empty">No experiment yet.</p>' : `<table><thead><tr><th>name</th><th>kind</th><th>method</th><th>status</th><th>from</th><th>variants</th><th></th></tr></thead>
        <tbody>${experiments.slice().reverse().map((e) => `<tr data-id="${esc(e.id)}"><td>${esc(e.name)}</td><td>${esc(e.kind)}</td><td>${esc(e.method)}</td><td>${esc(e.status)}</td>
          <td>${esc(e.from)}</td><td>${esc(e.variants.map((v) => `${v.name} (${v.weight})`).join(', '))}</td>
          <td><button class="open" data-action="report">Report</button> ${e.status === 'stopped' ? '<button class="open" data-action="delete">Delete</button>' : '<button class="open" data-action="stop">Stop</button>'}</td></tr>`).join('')}</tbody></table>`;
    } catch (err) {
      list.innerHTML = `<p class="error">${esc((err as Error).message)}</p>`;
    }
  };
  list.onclick = async (e) => {
    const button = (e.target as HTMLElement).closest<HTMLButtonElement>('button[data-action]');
    const id = button?.closest('tr')?.dataset.id;
    if (!button || !id) return;
    const path = `experiments/${encodeURIComponent(id)}`;
    try {
      if (button.dataset.action === 'report') return void (await showReport(id));
      if (button.dataset.action === 'stop') await call(conn, `${path}/stop`, 'POST');
      if (button.dataset.action === 'delete' && confirm('Delete this stopped experiment?')) await call(conn, path, 'DELETE');
      await refresh();
    } catch (err) {
      error.textContent = (err as Error).message;
    }
  };
  document.getElementById('experiment-form')!.onsubmit = async (e) => {
    e.preventDefault();
    error.textContent = '';
    try {
      const created = await call<Experiment>(conn, 'experiments', 'POST', bodyFromForm(e.target as HTMLFormElement));
      await refresh();
      await showReport(created.id);
    } catch (err) {
      error.textContent = (err as Error).message;
    }
  };
  await refresh();
}
