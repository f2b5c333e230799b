import { describe, expect, it } from 'vitest';
import { endpoints, recommendEndpoints } from '../src/endpoints.js';
import { HttpError } from '../src/errors.js';
import { MATCHED_PATH_LENGTH, MATCHED_PATHS, matchRoute, routes } from '../src/router.js';

/** A concrete path of a template: each `{name}` replaced by `value(name)`. */
const fill = (template: string, value: (name: string) => string) => template.replace(/\{([^}]+)\}/g, (_m, name: string) => value(name));

describe('routes derived from the endpoint declarations', () => {
  it('every declared endpoint is matched by its own path, with its parameters decoded in template order', () => {
    for (const [name, endpoint] of Object.entries(endpoints)) {
      const path = fill(endpoint.path, (param) => encodeURIComponent(`${param} é/x`));
      const match = matchRoute(path);
      expect(match?.route, name).toBe(routes[name as keyof typeof routes]);
      expect(match?.params, name).toEqual([...endpoint.path.matchAll(/\{([^}]+)\}/g)].map((m) => `${m[1]} é/x`));
    }
    for (const endpoint of recommendEndpoints) {
      expect(matchRoute(fill(endpoint.path, () => 'site'))?.route.template).toBe(endpoint.path);
    }
  });

  it('recommendation methods match case-insensitively; other segments reach the unknown-method route', () => {
    expect(matchRoute('/1.0/ClientRecom/site/popularitems')?.route.template).toBe('/1.0/ClientRecom/{website_id}/PopularItems');
    const unknown = matchRoute('/1.0/ClientRecom/site/NoSuchMethod');
    expect(unknown?.route.template).toBe('/1.0/ClientRecom/{website_id}/{method}');
    expect(unknown?.params).toEqual(['site', 'NoSuchMethod']);
    // `bundle` is its own endpoint, its segment matched case-insensitively as the methods' are (it was the
    // unknown-method route, whose 405 told a POST to `…/Bundle` that only GET is allowed).
    for (const segment of ['bundle', 'Bundle', 'BUNDLE']) {
      const bundle = matchRoute(`/1.0/ClientRecom/site/${segment}`);
      expect(bundle?.route.template, segment).toBe('/1.0/ClientRecom/{website_id}/bundle');
      expect(bundle?.params[0], segment).toBe('site');
    }
  });

  it('long parameters match; empty parameters, trailing slashes and doubled slashes do not', () => {
    const refId = 'r'.repeat(2000);
    expect(matchRoute(`/admin/v1/websites/site/products/${refId}`)?.params).toEqual(['site', refId]);
    for (const path of ['/1.0/ClientRecom//PopularItems', '/1.0/ClientRecom/site/', '/admin/v1/websites/site/products/', '/v1.4/search/', '//healthz', '/dashboard/', '/nope']) {
      expect(matchRoute(path), path).toBeUndefined();
    }
  });

  it('a malformed percent-encoding is 400 on a path that names an endpoint (carrying its route), and no match elsewhere', () => {
    expect(() => matchRoute('/admin/v1/websites/site/products/%zz')).toThrow(HttpError);
    expect(() => matchRoute('/admin/v1/websites/site/products/%zz')).toThrow(expect.objectContaining({ route: routes.product }));
    expect(() => matchRoute('/1.0/ClientRecom/%zz/popularitems')).toThrow(expect.objectContaining({ route: matchRoute('/1.0/ClientRecom/s/PopularItems')!.route }));
    try {
      matchRoute('/1.0/ClientRecom/%E0%A4%A/PopularItems');
      expect.unreachable();
    } catch (err) {
      expect((err as HttpError).status).toBe(400);
      expect((err as HttpError).message).toContain('%E0%A4%A');
    }
    expect(matchRoute('/nope/%zz')).toBeUndefined();
  });

  it('HEAD follows GET except on the GET that changes state; Allow lists the declared methods', () => {
    expect(routes.healthz.operations.has('HEAD')).toBe(true);
    expect(routes.coupon.operations.has('HEAD')).toBe(false);
    expect(routes.coupon.allow).toBe('GET, OPTIONS');
    expect(routes.product.allow).toBe('GET, DELETE, HEAD, OPTIONS');
    expect(routes.settings.allow).toBe('GET, PUT, PATCH, HEAD, OPTIONS');
    expect(routes.products.timed).toBe(false);
  });
});

describe('matched paths remembered', () => {
  it('share one frozen match per path, a long path matched anew each time, a bad one refused each time', () => {
    const path = '/1.0/ClientRecom/site-remembered/PopularItems';
    const first = matchRoute(path)!;
    expect(matchRoute(path)).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.params)).toBe(true);
    expect(first.params).toEqual(['site-remembered', 'PopularItems']);
    const long = `/1.0/ClientRecom/${'w'.repeat(MATCHED_PATH_LENGTH)}/PopularItems`;
    expect(matchRoute(long)!.params).toEqual(['w'.repeat(MATCHED_PATH_LENGTH), 'PopularItems']);
    expect(matchRoute(long)).not.toBe(matchRoute(long));
    expect(() => matchRoute('/1.0/ClientRecom/%E0%A4%A/PopularItems')).toThrow(HttpError);
    expect(() => matchRoute('/1.0/ClientRecom/%E0%A4%A/PopularItems')).toThrow(HttpError);
    expect(matchRoute('/no/such/path')).toBeUndefined();
    expect(matchRoute('/no/such/path')).toBeUndefined();
  });

  it('forget them all past MATCHED_PATHS and match as before', () => {
    const path = '/1.0/ClientRecom/site-forgotten/Cart';
    const first = matchRoute(path)!;
    for (let i = 0; i <= MATCHED_PATHS; i++) matchRoute(`/1.0/ClientRecom/site-${i}/Cart`);
    const again = matchRoute(path)!;
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
