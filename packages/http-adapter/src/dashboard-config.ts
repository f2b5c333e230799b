/**
 * What `GET /dashboard/config.json` answers ({@link DashboardConfig}): the websites' public identifiers
 * (website id and client shortcode, which storefront calls carry anyway), the facet and range fields, the
 * product fields an item is shown by (the website's field roles), the recommendation methods and those
 * that need a customer id (from the engine's method table), and — only when the server was given them, as
 * the demo does — a search key to prefill and customer ids to try. Never a token.
 * @module
 */
import { CUSTOMER_METHODS, DEFAULT_FIELD_ROLES, type Engine } from '@aisle/engine';
import { RECOMMEND_METHODS, type JsonSchema } from './schemas.js';

/** What the server was given to prefill in the page, per website id (the demo passes its own). */
export interface DashboardPrefill {
  /** A search key per website id to prefill in the page. */
  searchKeys?: Readonly<Record<string, string>>;
  /** Customer ids per website id that the page offers for the customer-based methods (the demo: its busiest shoppers). */
  demoCustomers?: Readonly<Record<string, readonly string[]>>;
}

/** The product fields the page shows an item by (recommendations and bundles list refIds only). */
export interface DisplayFields {
  /** The spec's product title. */
  title: string;
  /** `settings.fieldRoles.price`. */
  price: string;
  /** `settings.fieldRoles.image`: an image URL. */
  image: string;
}

/** One website of {@link DashboardConfig}. */
export interface DashboardSite {
  websiteId: string;
  client: string;
  /** Facet fields: the brand role and the category role (its root when a path). */
  facets: string[];
  /** Range fields: the price role. */
  numericFields: string[];
  /** The names of the website's hierarchies (`settings.hierarchies`): a hierarchical menu each. */
  hierarchies: string[];
  displayFields: DisplayFields;
  /** A search key to prefill; only when the server was given one. */
  searchKey?: string;
  /** Customer ids to try the customer-based methods with; only when the server was given some. */
  demoCustomers?: string[];
}

/** What `GET /dashboard/config.json` answers. */
export interface DashboardConfig {
  websites: DashboardSite[];
  /** Every recommendation method, in the spec's order. */
  recommendMethods: readonly string[];
  /** The methods whose only input is `customerId`: the page calls them only once it has a customer id. */
  customerMethods: readonly string[];
}

/** The spec's title field (not a role: the spec names it). */
const TITLE_FIELD = 'title';

const strings = { type: 'array', items: { type: 'string' } } as const;
const field = (description: string) => ({ type: 'string', description });

/**
 * The JSON schema of {@link DashboardConfig}, published in the OpenAPI document. The dashboard's e2e
 * test validates the served answer against it (closed objects, required keys), so the two cannot drift.
 */
export const DASHBOARD_CONFIG_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['websites', 'recommendMethods', 'customerMethods'],
  additionalProperties: false,
  properties: {
    websites: {
      type: 'array',
      items: {
        type: 'object',
        required: ['websiteId', 'client', 'facets', 'numericFields', 'hierarchies', 'displayFields'],
        additionalProperties: false,
        properties: {
          websiteId: { type: 'string' },
          client: { type: 'string', description: 'The client shortcode (storefront calls carry it anyway).' },
          facets: { ...strings, description: 'Facet fields: the brand role and the category role (its root when a path).' },
          numericFields: { ...strings, description: 'Range fields: the price role.' },
          hierarchies: { ...strings, description: 'The names of the website\'s hierarchies (settings.hierarchies): a hierarchical menu each.' },
          displayFields: {
            type: 'object',
            required: ['title', 'price', 'image'],
            additionalProperties: false,
            description: 'The product fields an item is shown by (settings.fieldRoles, defaults filled in).',
            properties: {
              title: field('The title field.'),
              price: field('settings.fieldRoles.price.'),
              image: field('settings.fieldRoles.image: a field holding an image URL.'),
            },
          },
          searchKey: field('A browser search key to prefill; only when the server was started with one (the demo).'),
          demoCustomers: { ...strings, description: 'Customer ids to try the customer-based methods with; only when the server was started with some (the demo).' },
        },
      },
    },
    recommendMethods: { ...strings, description: 'Every recommendation method, in the spec\'s order.' },
    customerMethods: { ...strings, description: 'The methods whose only input is customerId: called only with a customer id.' },
  },
};

/** What `GET /dashboard/config.json` answers: the websites with their field roles (defaults filled in). */
export function dashboardConfig(engine: Pick<Engine, 'websites'>, options: DashboardPrefill): DashboardConfig {
  return {
    websites: engine.websites().map((w) => {
      const roles = w.settings?.fieldRoles;
      const category = roles?.category ?? DEFAULT_FIELD_ROLES.category;
      const price = roles?.price ?? DEFAULT_FIELD_ROLES.price;
      const site: DashboardSite = {
        websiteId: w.websiteId,
        client: w.client,
        // The website's field roles (settings.fieldRoles; a category path facets on its root).
        facets: [roles?.brand ?? DEFAULT_FIELD_ROLES.brand, Array.isArray(category) ? category[0] : category],
        numericFields: [price],
        hierarchies: Object.keys(w.settings?.hierarchies ?? {}),
        displayFields: { title: TITLE_FIELD, price, image: roles?.image ?? DEFAULT_FIELD_ROLES.image },
      };
      const key = options.searchKeys?.[w.websiteId];
      if (key !== undefined) site.searchKey = key;
      const customers = options.demoCustomers?.[w.websiteId];
      if (customers !== undefined && customers.length > 0) site.demoCustomers = [...customers];
      return site;
    }),
    recommendMethods: RECOMMEND_METHODS,
    customerMethods: CUSTOMER_METHODS,
  };
}
