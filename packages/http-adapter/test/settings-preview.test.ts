/**
 * `POST /admin/v1/websites/{websiteId}/settings/preview` over a real socket: one search ranked under the
 * settings in force and under a change merged in as a PATCH would merge it, validated as a PATCH is,
 * nothing stored, nothing logged (inline and on the worker pool).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PG_URL, TestSchemas, requirePostgres } from '../../engine/src/store/pg-test-env.js';
import { ADMIN_TOKEN, bearer, expectDocumented, post } from './helpers.js';
import { merchSearch, putMerchSettings, refIds, startMerchService, type MerchService } from './merch-helpers.js';

const PATH = '/admin/v1/websites/{websiteId}/settings/preview';

interface Preview {
  before: { total_results: number; result: { refId: string; title?: string }[]; redirect?: string };
  after: { total_results: number; result: { refId: string; title?: string }[]; redirect?: string };
  moves: { refId: string; before: number | null; after: number | null }[];
}

describe.each([['inline', false], ['pool', true]] as const)('settings preview (%s)', (_name, pooled) => {
  let svc: MerchService;
  beforeAll(async () => { svc = await startMerchService(pooled); });
  afterAll(() => svc.close());

  const preview = (body: unknown, token = ADMIN_TOKEN, site = 'm') => post(`${svc.url}/admin/v1/websites/${site}/settings/preview`, body, bearer(token));
  async function ok(body: unknown): Promise<Preview> {
    const res = await preview(body);
    expect(res.status).toBe(200);
    return (await expectDocumented(res, PATH, 'POST')) as Preview;
  }
  async function problem(body: unknown, status = 400): Promise<Record<string, string[]>> {
    const res = await preview(body);
    expect(res.status).toBe(status);
    return ((await expectDocumented(res, PATH, 'POST')) as { errors: Record<string, string[]> }).errors;
  }
  const settings = async () => (await (await fetch(`${svc.url}/admin/v1/websites/m/settings`, { headers: bearer(ADMIN_TOKEN) })).json()) as Record<string, unknown>;

  it('ranks a pin before and after, with every position, and stores nothing', async () => {
    await putMerchSettings(svc, { rules: [] });
    const plain = refIds(await merchSearch(svc, { q: 'running', size: 5 }));
    const rule = { id: 'studio', query: 'running', match: 'exact', pin: [{ refId: 'p9', position: 2 }], hide: [plain[0]!] };
    const p = await ok({ search: { q: 'running', size: 5 }, settings: { rules: [rule] } });
    expect(p.before.result.map((r) => r.refId)).toEqual(plain);
    expect(p.before.total_results).toBe(12);
    const after = p.after.result.map((r) => r.refId);
    expect(after[1]).toBe('p9');
    expect(after).not.toContain(plain[0]);
    expect(p.after.total_results).toBe(11);
    // Items are the products as loaded (a title to show).
    expect(p.after.result[1]!.title).toBe('red running shoe model 9'.replace('red', 'blue'));
    expect(p.moves.find((m) => m.refId === plain[0])).toEqual({ refId: plain[0], before: 1, after: null });
    expect(p.moves.find((m) => m.refId === 'p9')).toMatchObject({ after: 2 });
    expect(p.moves.slice(0, after.length).map((m) => m.after)).toEqual([1, 2, 3, 4, 5]);
    // Nothing stored: the settings and the live search are as before.
    expect((await settings()).rules).toEqual([]);
    expect(refIds(await merchSearch(svc, { q: 'running', size: 5 }))).toEqual(plain);
  });

  it('merges as a PATCH: over the stored settings, null removes a key, arrays are replaced', async () => {
    await putMerchSettings(svc, { rules: [{ id: 'r', query: 'bag', pin: [{ refId: 'p1', position: 1 }] }] });
    // A patch of another key keeps the stored rule in force on both sides.
    const kept = await ok({ search: { q: 'bag' }, settings: { stopWords: ['model'] } });
    expect(kept.before.result[0]!.refId).toBe('p1');
    expect(kept.after.result[0]!.refId).toBe('p1');
    const removed = await ok({ search: { q: 'bag' }, settings: { rules: null } });
    expect(removed.before.result[0]!.refId).toBe('p1');
    expect(removed.after.result.map((r) => r.refId)).not.toContain('p1');
    expect(removed.moves.find((m) => m.refId === 'p1')).toEqual({ refId: 'p1', before: 1, after: null });
    await putMerchSettings(svc, {});
  });

  it('shows what synonyms, redirects and paging change; start and positions agree', async () => {
    const syn = await ok({ search: { q: 'sneaker' }, settings: { synonyms: [{ from: 'sneaker', to: ['shoe'] }] } });
    expect(syn.before.total_results).toBe(0);
    expect(syn.after.total_results).toBe(9);
    expect(syn.moves.every((m) => m.before === null)).toBe(true);
    const redirect = await ok({ search: { q: 'help' }, settings: { redirects: [{ queries: ['help'], url: 'https://shop.example/help' }] } });
    expect(redirect.before.redirect).toBeUndefined();
    expect(redirect.after.redirect).toBe('https://shop.example/help');
    const page = await ok({ search: { q: 'running', start: 4, size: 2 }, settings: {} });
    expect(page.moves.map((m) => [m.before, m.after])).toEqual([[5, 5], [6, 6]]);
    // Unicode query text and an empty query (browsing) are searches like any other.
    expect((await ok({ search: { q: 'čäñ 日本' }, settings: {} })).after.total_results).toBe(0);
    expect((await ok({ settings: {} })).after.total_results).toBe(13);
  });

  it('is not a shopper\'s search: neither logged nor counted', async () => {
    await ok({ search: { q: 'previewonly' }, settings: {} });
    await merchSearch(svc, { q: 'controlquery' });
    const res = await fetch(`${svc.url}/admin/v1/websites/m/reports/searches`, { headers: bearer(ADMIN_TOKEN) });
    const report = (await res.json()) as { top: { query: string }[]; noResults: { query: string }[] };
    const logged = [...report.top, ...report.noResults].map((t) => t.query);
    expect(logged).toContain('controlquery');
    expect(logged).not.toContain('previewonly');
  });

  // Problem keys: the top-level property as sent, deeper ones in PascalCase (the problem-details convention).
  it('refuses bad settings as a PATCH does, naming the key, and bad searches under search.', async () => {
    const bad = await problem({ search: { q: 'running' }, settings: { rules: [{ id: 'r', query: 'x', pin: [{ refId: 'p1', position: 0 }] }] } });
    expect(Object.keys(bad)).toEqual(['settings.Rules[0].Pin[0].Position']);
    expect(Object.keys(await problem({ settings: { typoTolerance: { minWordSizeOneTypo: 'four' } } }))).toEqual(['settings.TypoTolerance.MinWordSizeOneTypo']);
    expect(Object.keys(await problem({ settings: { nonsense: 1 } }))).toEqual(['settings.Nonsense']);
    expect(Object.keys(await problem({ search: { q: 'x', size: -1 }, settings: {} }))).toEqual(['search.Size']);
    expect(Object.keys(await problem({ search: { q: 'x', range_buckets: { price: [5, 5] } }, settings: {} }))).toEqual(['search.Range_buckets.Price[1]']);
    expect(Object.keys(await problem({ search: { q: 'x' } }))).toEqual(['settings']);
    expect(Object.keys(await problem({ settings: [] }))).toEqual(['settings']);
    expect(Object.keys(await problem({ settings: {}, extra: true }))).toEqual(['extra']);
    expect(Object.keys(await problem([]))).toEqual(['$']);
    // A rule boost whose scope does not fit the catalog (a range on a text field), as the PATCH refuses it.
    const boost = await problem({ settings: { rules: [{ id: 'b', query: '', match: 'contains', boost: [{ scope: { colour: { min: 1 } }, weight: 2 }] }] } });
    expect(Object.keys(boost)[0]).toMatch(/^settings\.Rules\[0\]\.Boost\[0\]/);
    // Pinned field types that stored products do not fit: 409, as the PATCH.
    const res = await preview({ settings: { fields: { brand: { type: 'number' } } } });
    expect(res.status).toBe(409);
    await expectDocumented(res, PATH, 'POST');
    expect((await settings()).fields).toEqual({});
  });

  it('answers concurrent previews each under its own change, and refuses bodies too deep or too large', async () => {
    await putMerchSettings(svc, {});
    const refs = ['p1', 'p2', 'p3', 'p4', 'p6', 'p7', 'p8', 'p9'];
    const answers = await Promise.all(refs.map((refId) => ok({ search: { q: 'running', size: 3 }, settings: { rules: [{ id: refId, query: 'running', pin: [{ refId, position: 1 }] }] } })));
    expect(answers.map((a) => a.after.result[0]!.refId)).toEqual(refs);
    let deep: unknown = 1;
    for (let i = 0; i < 200; i++) deep = { x: deep };
    expect((await preview({ settings: { rules: deep } })).status).toBe(400);
    // More stop words than the settings hold (the schema's bound, as a PATCH), and a body over the limit (1 MiB).
    const tooMany = await problem({ settings: { stopWords: Array.from({ length: 20_000 }, () => 'w') } });
    expect(Object.keys(tooMany)).toEqual(['settings.StopWords']);
    expect((await preview({ search: { q: 'x'.repeat(2 * 1024 * 1024) }, settings: {} })).status).toBe(413);
    expect((await settings()).stopWords).toEqual([]);
  });

  it('opens with the admin token only, for a website that exists', async () => {
    expect((await preview({ settings: {} }, 'wrong-token')).status).toBe(401);
    expect((await preview({ settings: {} }, ADMIN_TOKEN, 'nope')).status).toBe(404);
    const res = await fetch(`${svc.url}/admin/v1/websites/m/settings/preview`, { method: 'POST', headers: { ...bearer(ADMIN_TOKEN), 'content-type': 'text/plain' }, body: '{}' });
    expect(res.status).toBe(415);
  });
});

describe('settings preview on PostgreSQL', () => {
  const schemas = new TestSchemas();
  let svc: MerchService;
  beforeAll(async () => {
    await requirePostgres();
    svc = await startMerchService(false, { store: { type: 'postgres', url: TEST_PG_URL, schema: schemas.next() } });
  });
  afterAll(async () => {
    await svc?.close();
    await schemas.dropAll();
  });

  it('merges over the settings stored in PostgreSQL and stores nothing', async () => {
    await putMerchSettings(svc, { rules: [{ id: 'r', query: 'bag', pin: [{ refId: 'p1', position: 1 }] }] });
    const res = await post(`${svc.url}/admin/v1/websites/m/settings/preview`, { search: { q: 'bag' }, settings: { rules: null } }, bearer(ADMIN_TOKEN));
    expect(res.status).toBe(200);
    const p = (await expectDocumented(res, PATH, 'POST')) as Preview;
    expect(p.before.result[0]!.refId).toBe('p1');
    expect(p.after.result.map((r) => r.refId)).not.toContain('p1');
    const stored = (await (await fetch(`${svc.url}/admin/v1/websites/m/settings`, { headers: bearer(ADMIN_TOKEN) })).json()) as { rules: unknown[] };
    expect(stored.rules).toHaveLength(1);
    expect((await merchSearch(svc, { q: 'bag' })).payload.result[0]!.refId).toBe('p1');
  });
});
