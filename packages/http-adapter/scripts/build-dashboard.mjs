#!/usr/bin/env node
// Builds the dashboard (packages/http-adapter/dashboard) into dist/dashboard: one ES module bundle with
// InstantSearch.js and @aisle/instantsearch inside (no CDN: the page works offline), the
// stylesheet, and the page. Run by the root `pnpm run build`, after tsc; type-checks the page first.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const source = path.join(root, 'dashboard');
const out = path.join(root, 'dist', 'dashboard');
mkdirSync(out, { recursive: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(source, 'tsconfig.json')], { stdio: 'inherit' });

await build({
  entryPoints: { app: path.join(source, 'src', 'main.ts') },
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2020'],
  minify: true,
  sourcemap: true,
  legalComments: 'linked',
  outdir: out,
  // The client's sources, so the page never depends on the order packages are built in.
  alias: { '@aisle/instantsearch': path.join(root, '..', 'instantsearch', 'src', 'index.ts') },
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
});
await build({ entryPoints: { app: path.join(source, 'src', 'style.css') }, bundle: true, minify: true, outdir: out, logLevel: 'warning' });
copyFileSync(path.join(source, 'index.html'), path.join(out, 'index.html'));
// Precompressed copies, served to browsers that accept gzip (the bundle shrinks about 3×).
for (const name of ['app.js', 'app.css']) writeFileSync(path.join(out, `${name}.gz`), gzipSync(readFileSync(path.join(out, name)), { level: 9 }));
process.stdout.write(`dashboard built into ${path.relative(process.cwd(), out) || out}\n`);
