/**
 * Authentication by the auth kind an operation declares (endpoints.ts), run by the listener before the
 * handler, so what OpenAPI publishes as an operation's security is what the listener enforces.
 * @module
 */
import type { ListenerState, RequestContext } from './context.js';
import type { AuthKind } from './endpoints.js';
import { HttpError } from './errors.js';

/**
 * Checks the caller of `ctx` for `kind` and records the website it opens on `ctx` (401 for a missing
 * or wrong token; for `admin`, 404 when the path's website does not exist).
 */
export async function authenticate(kind: AuthKind, ctx: RequestContext, state: ListenerState): Promise<void> {
  switch (kind) {
    case 'public':
      return;
    case 'website':
      ctx.websiteId = await state.tokens.requireWebsite(ctx.req, state.engine);
      return;
    case 'search':
    case 'insights': {
      const { websiteId, key } = await state.tokens.requireKeyCaller(ctx.req, state.engine, kind);
      ctx.websiteId = websiteId;
      if (key) ctx.searchKey = key;
      return;
    }
    case 'admin': {
      state.tokens.requireAdmin(ctx.req);
      const websiteId = ctx.params[0]!;
      if (!state.engine.website(websiteId)) throw new HttpError('WEBSITE_NOT_FOUND', { websiteId }, { key: 'websiteId' });
      ctx.websiteId = websiteId;
      return;
    }
  }
}
