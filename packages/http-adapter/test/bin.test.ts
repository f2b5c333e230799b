import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PKG = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string; bin: { aisle: string } };
const BUILT = existsSync(new URL('../dist/cli.js', import.meta.url));

// `npx -y pnpm@10 exec aisle …` from the repository root runs the command the root's dev dependency on
// the adapter links into node_modules/.bin; these run that link directly (no package manager needed).
describe('the aisle command linked at the repository root', () => {
  const bin = `${REPO_ROOT}node_modules/.bin/aisle`;

  it('is linked to the committed bin file (present before any build)', () => {
    expect(PKG.bin.aisle).toBe('./bin/aisle.js');
    expect(existsSync(bin)).toBe(true);
  });

  it(BUILT ? 'prints the package version' : 'says the adapter is not built yet and exits 1', async () => {
    if (BUILT) {
      const { stdout } = await run(bin, ['--version'], { cwd: REPO_ROOT });
      expect(stdout.trim()).toBe(PKG.version);
    } else {
      await expect(run(bin, ['--version'], { cwd: REPO_ROOT })).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('not built yet') });
    }
  });
});
