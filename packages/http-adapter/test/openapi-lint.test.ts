import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { endpoints } from '../src/endpoints.js';
import { buildOpenApi } from '../src/openapi.js';

describe('the OpenAPI document derived from the endpoint declarations', () => {
  it('lints clean with Redocly\'s recommended rules (no error, no warning)', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(buildOpenApi()), absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('publishes each declared operation with its auth kind: public ones declare `security: []`', () => {
    const doc = buildOpenApi() as { paths: Record<string, Record<string, { security: unknown[]; operationId: string }>> };
    const search = doc.paths[endpoints.search.path]!.post!;
    expect(search.security).toEqual([{ bearer: [] }, { searchKey: [] }]);
    expect(doc.paths[endpoints.healthz.path]!.get!.security).toEqual([]);
    expect(doc.paths[endpoints.settings.path]!.patch!.security).toEqual([{ adminBearer: [] }]);
    for (const [name, endpoint] of Object.entries(endpoints)) {
      if ('undocumented' in endpoint) continue;
      for (const op of endpoint.operations) {
        const published = doc.paths[endpoint.path]?.[op.method.toLowerCase()];
        expect(published?.operationId, `${name} ${op.method}`).toBe(op.operationId);
        expect(published?.security, `${name} ${op.method}`).toBeDefined();
      }
    }
  });
});
