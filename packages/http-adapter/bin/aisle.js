#!/usr/bin/env node
// The `aisle` command. This small committed file (rather than dist/cli.js itself) is what the package's
// `bin` names, so a package manager can link the command at install time, before the first build.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('aisle: the HTTP adapter is not built yet: run `npx -y pnpm@10 run build` first\n');
  process.exit(1);
}
const { main } = await import(cli.href);
await main();
