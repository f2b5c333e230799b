/**
 * The README's library example is a file of the repository (packages/engine/examples/quickstart.mjs):
 * the README shows it verbatim, and it runs as written against the built package.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const example = 'packages/engine/examples/quickstart.mjs';

describe('README library example', () => {
  it('is shown verbatim in the README', () => {
    const readme = readFileSync(`${root}README.md`, 'utf8');
    const section = readme.slice(readme.indexOf('## Use it as a library'));
    const block = /```js\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBe(readFileSync(`${root}${example}`, 'utf8'));
  });

  it('runs as written from the repository root', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [example], { cwd: root, timeout: 60_000 });
    expect(stdout).toContain("search: [ 'sku-1' ]");
    expect(stdout).toContain('sku-2 (Bought With)');
  });

  // Its engine closes while the search pool's workers may still be loading: that aborted the process
  // about one run in seven (`FATAL ERROR: v8::Module::IsGraphAsync`, search-pool.ts IMPORT_ONLY).
  it('exits cleanly run after run (24 runs)', async () => {
    const run = async (): Promise<string | undefined> => {
      try {
        await promisify(execFile)(process.execPath, [example], { cwd: root, timeout: 60_000 });
        return undefined;
      } catch (err) {
        return String((err as { stderr?: string }).stderr ?? err).slice(0, 300);
      }
    };
    const failures: string[] = [];
    for (let round = 0; round < 6; round++) {
      for (const failure of await Promise.all([run(), run(), run(), run()])) if (failure !== undefined) failures.push(failure);
    }
    expect(failures).toEqual([]);
  }, 300_000);
});
