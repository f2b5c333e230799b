/**
 * The search page: InstantSearch.js widgets over aisle, through `@aisle/instantsearch`; opening a
 * product sends a click on its result (InstantSearch's insights middleware, aisle's insights client).
 */
import { aisleInsightsClient, aisleSearchClient } from '@aisle/instantsearch';
import instantsearch, { type InstantSearch } from 'instantsearch.js/es';
import { hierarchicalMenu, hits, pagination, panel, rangeInput, refinementList, searchBox, sortBy, stats } from 'instantsearch.js/es/widgets';
import { formatNumber, type Connection } from './api.js';

const INDEX = 'products';
/** Levels a hierarchical menu can open (its level attributes are names the search client maps to the hierarchy). */
const MENU_LEVELS = 6;

let current: InstantSearch | undefined;

/** Starts (or restarts) InstantSearch for a connection; `onOpen` opens a product. */
export function startSearch(conn: Connection, onOpen: (refId: string, title: string) => void, onError: (message: string) => void): void {
  current?.dispose();
  for (const id of ['searchbox', 'stats', 'sort', 'facets', 'ranges', 'hits', 'pagination']) document.getElementById(id)!.replaceChildren();
  const price = conn.site.numericFields[0];
  const sortIndices = price ? {
    [`${INDEX}_${price}_asc`]: [{ [price]: { order: 'asc' as const, type: 'number' as const } }],
    [`${INDEX}_${price}_desc`]: [{ [price]: { order: 'desc' as const, type: 'number' as const } }],
  } : {};
  // One session per search page: searches and clicks are counted under it.
  const sessionId = crypto.randomUUID();
  // Each hierarchy of the website as the hierarchicalMenu widget sees it: one attribute per level.
  const hierarchicalFacets = Object.fromEntries(conn.site.hierarchies.map((name) => [name, { attributes: Array.from({ length: MENU_LEVELS }, (_, l) => `${name}.lvl${l}`) }]));
  const searchClient = aisleSearchClient({
    url: '', key: conn.searchKey, websiteId: conn.site.websiteId, client: conn.site.client, numericFields: conn.site.numericFields, sortIndices, sessionId,
    hierarchicalFacets,
  });
  const insightsClient = aisleInsightsClient({
    url: '', key: conn.searchKey, sessionId, positionOf: searchClient.positionOf,
    onError: (error) => onError(`Click not recorded (the key needs the insights action): ${error.message}`),
  });
  const search = instantsearch({
    indexName: INDEX, searchClient: searchClient as never, future: { preserveSharedStateOnUnmount: true },
    insights: { insightsClient: insightsClient as never },
  });
  search.on('error', ({ error }) => onError(`Search failed: ${(error as Error).message}`));

  const facetContainers = conn.site.facets.map((field) => {
    const div = document.createElement('div');
    document.getElementById('facets')!.append(div);
    return { field, div };
  });
  // The category menus below the lists of values.
  const menuContainers = Object.entries(hierarchicalFacets).map(([name, { attributes }]) => {
    const div = document.createElement('div');
    document.getElementById('facets')!.append(div);
    return { name, attributes, div };
  });
  const rangeContainers = conn.site.numericFields.map((field) => {
    const div = document.createElement('div');
    document.getElementById('ranges')!.append(div);
    return { field, div };
  });

  search.addWidgets([
    searchBox({ container: '#searchbox', placeholder: 'Search products', showLoadingIndicator: false }),
    stats({ container: '#stats' }),
    sortBy({
      container: '#sort',
      items: [{ label: 'Relevance', value: INDEX }, ...Object.keys(sortIndices).map((value) => ({ label: value.endsWith('_asc') ? `${price} ascending` : `${price} descending`, value }))],
    }),
    ...menuContainers.map(({ name, attributes, div }) => panel<typeof hierarchicalMenu>({ templates: { header: () => name.replace(/_/g, ' ') } })(hierarchicalMenu)({
      // aisle's order: the biggest categories first.
      container: div, attributes, limit: 10, showParentLevel: true, sortBy: ['count:desc', 'name:asc'],
    })),
    ...facetContainers.map(({ field, div }, i) => {
      // Checkboxes labelled "value (count)", as a screen reader reads them.
      const listOptions: Parameters<typeof refinementList>[0] = {
        container: div,
        attribute: field,
        operator: 'or',
        limit: 8,
        // The brand list (the first facet) is searchable: its values are searched by aisle's facet_search.
        ...(i === 0 && { searchable: true, searchablePlaceholder: `Search ${field.replace(/_/g, ' ')}` }),
        templates: {
          item: (item, { html }) => html`<label class="ais-RefinementList-label"><input type="checkbox" class="ais-RefinementList-checkbox" value=${item.value} checked=${item.isRefined} /> ${item.label} (${item.count})</label>`,
        },
      };
      return panel<typeof refinementList>({ templates: { header: () => field.replace(/_/g, ' ') } })(refinementList)(listOptions);
    }),
    ...rangeContainers.map(({ field, div }) => panel({ templates: { header: () => `${field.replace(/_/g, ' ')} range` } })(rangeInput)({ container: div, attribute: field })),
    hits({
      container: '#hits',
      templates: {
        item: (hit, { html, components, sendEvent }) => html`<article class="hit" data-ref=${hit.objectID} data-position=${hit.__position}>
          <div class="hit-main">
            <h3>${components.Highlight({ hit, attribute: 'title' })}</h3>
            <p class="meta">${String(hit.brand ?? '')} · ${String(hit.search_category ?? '')}${variantsNote(hit._variants)}</p>
          </div>
          <div class="hit-side"><span class="price">${price ? formatNumber(hit[price]) : ''}</span>
          <button type="button" class="open" data-ref=${hit.objectID} data-title=${String(hit.title ?? hit.objectID)}
            onClick=${() => sendEvent('click', hit, 'Product Opened')}>View</button></div>
        </article>`,
        empty: (results, { html }) => html`<p class="empty">No products match “${results.query}”.</p>`,
      },
    }),
    pagination({ container: '#pagination', padding: 2 }),
  ]);
  document.getElementById('hits')!.onclick = (event) => {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>('button.open');
    if (button) onOpen(button.dataset.ref!, button.dataset.title!);
  };
  search.start();
  current = search;
}

/** A distinct result's variant count (`_variants`, see docs/http-api.md "Variants"), when it has others. */
function variantsNote(variants: unknown): string {
  return typeof variants === 'number' && variants > 1 ? ` · ${variants} variants` : '';
}
