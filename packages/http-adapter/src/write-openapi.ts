/**
 * Writes the OpenAPI document to docs/openapi.json (or the path given as the first argument):
 * `node packages/http-adapter/dist/write-openapi.js` after a build.
 * @module
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOpenApi } from './openapi.js';

const target = process.argv[2] ?? fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
writeFileSync(target, `${JSON.stringify(buildOpenApi(), null, 2)}\n`);
process.stdout.write(`wrote ${target}\n`);
