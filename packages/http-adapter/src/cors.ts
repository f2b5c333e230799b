/**
 * CORS for the browser-called endpoints (recommendations, bundle, coupon, and search and clicks with a
 * browser key): the allowed origins come from the website's `settings.cors.origins` (`"*"` allows any
 * origin). A search or a click names its website by its key (or body), which a preflight does not carry:
 * the preflight and the errors answered before the caller is known are allowed for an origin that any
 * website allows, and the answer carries the headers only when the caller's website allows the origin.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { Engine, WebsiteConfig } from '@aisle/engine';

/** Methods announced in preflight responses. */
const ALLOW_METHODS = 'GET, POST, OPTIONS';
/** Request headers a browser may send. */
const ALLOW_HEADERS = 'Authorization, Content-Type, X-Request-Id';

/** The CORS headers for a request from `origin` to a website, or undefined when the origin is not allowed. */
export function corsHeaders(
  req: IncomingMessage, website: WebsiteConfig | readonly WebsiteConfig[] | undefined, preflight: boolean,
): Record<string, string> | undefined {
  const origin = req.headers.origin;
  if (!origin || !website) return undefined;
  const allows = (w: WebsiteConfig) => {
    const origins = w.settings?.cors?.origins;
    return origins !== undefined && (origins.includes(origin) || origins.includes('*'));
  };
  if (!(Array.isArray(website) ? (website as readonly WebsiteConfig[]).some(allows) : allows(website as WebsiteConfig))) return undefined;
  const headers: Record<string, string> = {
    'access-control-allow-origin': origin,
    vary: 'Origin',
    'access-control-expose-headers': 'X-Request-Id',
  };
  if (preflight) {
    headers['access-control-allow-methods'] = ALLOW_METHODS;
    headers['access-control-allow-headers'] = ALLOW_HEADERS;
    headers['access-control-max-age'] = '600';
  }
  return headers;
}

/** The website a coupon call names: `client` is the website id or its client shortcode. */
export function websiteForClient(engine: Pick<Engine, 'website' | 'websites'>, client: string): WebsiteConfig | undefined {
  return engine.website(client) ?? engine.websites().find((w) => w.client === client);
}
