/**
 * The dashboard's entry: the connection bar (website, search key, admin token), the tabs, and the
 * views (search, product, catalog browser, insights, studio, experiments). The admin token stays in this tab's sessionStorage; nothing is sent anywhere but this
 * server's public API.
 */
import { getJson, type Connection, type DashboardConfig } from './api.js';
import { mountCatalog } from './catalog-view.js';
import { showProduct } from './product-view.js';
import { showReports } from './reports-view.js';
import { showExperiments } from './experiments-view.js';
import { startSearch } from './search-view.js';
import { showStudio } from './studio-view.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const TOKEN_STORAGE = 'aisle.adminToken';

function notice(message: string | undefined): void {
  const el = $('notice');
  el.hidden = !message;
  el.textContent = message ?? '';
}

/** Shows one view: every tab of the page's tab list is read from the page (`tab-<name>` controls `view-<name>`). */
function selectTab(name: string): void {
  for (const tab of document.querySelectorAll<HTMLElement>('[role="tab"]')) {
    const selected = tab.id === `tab-${name}`;
    tab.setAttribute('aria-selected', String(selected));
    $(tab.getAttribute('aria-controls')!).hidden = !selected;
  }
}

async function main(): Promise<void> {
  const config = await getJson<DashboardConfig>('/dashboard/config.json');
  const select = $<HTMLSelectElement>('website');
  for (const site of config.websites) select.append(new Option(site.websiteId, site.websiteId));
  const keyInput = $<HTMLInputElement>('search-key');
  const tokenInput = $<HTMLInputElement>('admin-token');
  tokenInput.value = sessionStorage.getItem(TOKEN_STORAGE) ?? '';
  let conn: Connection | undefined;
  let reportsShown = false;
  let studioShown = false;

  const prefill = () => {
    const site = config.websites.find((w) => w.websiteId === select.value);
    keyInput.value = site?.searchKey ?? '';
  };
  const connect = () => {
    const site = config.websites.find((w) => w.websiteId === select.value);
    if (!site) return notice('This server has no website.');
    sessionStorage.setItem(TOKEN_STORAGE, tokenInput.value);
    conn = { site, searchKey: keyInput.value.trim(), adminToken: tokenInput.value.trim() };
    reportsShown = false;
    studioShown = false;
    offerDemoCustomers();
    // The studio and the experiments need the admin token only (not a search key).
    if (!$('view-studio').hidden) void loadStudio();
    if (!$('view-experiments').hidden) void showExperiments(conn);
    if (!conn.searchKey) return notice('Type a search key (POST /admin/v1/websites/{id}/keys creates one) to search.');
    notice(undefined);
    startSearch(conn, openProduct, notice);
    if (!$('view-reports').hidden) void loadReports();
  };
  const customerInput = $<HTMLInputElement>('customer-id');
  const demoButton = $<HTMLButtonElement>('demo-customer');
  // The website's demo customers: offered in the customer field's list and by the button (hidden without any).
  const offerDemoCustomers = () => {
    const customers = conn?.site.demoCustomers ?? [];
    $('demo-customers').replaceChildren(...customers.map((id) => new Option(id, id)));
    demoButton.hidden = customers.length === 0;
  };
  const openProduct = (refId: string) => {
    if (!conn || !refId) return;
    // The items' titles are read with the search key: without one the page would only collect 401s.
    if (!conn.searchKey) return notice('Type a search key to open a product.');
    selectTab('product');
    $<HTMLInputElement>('product-ref').value = refId;
    void showProduct(conn, { refId, customerId: customerInput.value.trim(), methods: config.recommendMethods, customerMethods: config.customerMethods });
  };
  const loadReports = async () => {
    if (!conn) return;
    reportsShown = true;
    await showReports(conn);
  };

  const loadStudio = async () => {
    if (!conn) return;
    studioShown = true;
    await showStudio(conn).catch((err: unknown) => notice(`The studio could not load the settings: ${(err as Error).message}`));
  };

  select.onchange = () => { prefill(); connect(); };
  $('connection').onsubmit = (e) => { e.preventDefault(); connect(); };
  $('tab-search').onclick = () => selectTab('search');
  $('tab-product').onclick = () => selectTab('product');
  $('tab-catalog').onclick = () => selectTab('catalog');
  mountCatalog(() => conn);
  $('tab-reports').onclick = () => { selectTab('reports'); if (!reportsShown) void loadReports(); };
  $('tab-studio').onclick = () => { selectTab('studio'); if (!studioShown) void loadStudio(); };
  $('tab-experiments').onclick = () => { selectTab('experiments'); if (conn) void showExperiments(conn); };
  $('product-form').onsubmit = (e) => { e.preventDefault(); openProduct($<HTMLInputElement>('product-ref').value.trim()); };
  demoButton.onclick = () => {
    // The next demo customer on each click (the first when the field holds none of them).
    const customers = conn?.site.demoCustomers ?? [];
    customerInput.value = customers[(customers.indexOf(customerInput.value.trim()) + 1) % customers.length] ?? '';
    openProduct($<HTMLInputElement>('product-ref').value.trim());
  };
  $('view-product').addEventListener('click', (e) => {
    const button = (e.target as HTMLElement).closest<HTMLButtonElement>('button.open');
    if (button) openProduct(button.dataset.ref!);
  });
  prefill();
  connect();
}

main().catch((err: unknown) => notice(`The dashboard could not start: ${(err as Error).message}`));
