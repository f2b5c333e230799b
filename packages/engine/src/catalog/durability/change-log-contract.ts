/**
 * The one contract suite every {@link CatalogChangeLog} implementation runs (as `store-contract.ts` is
 * for stores): each implementation's test file calls {@link runChangeLogContract} with a factory for
 * a fresh place to keep logs (a directory, a schema), whose logs can be opened, closed and opened
 * again there. Test-only: not part of the build.
 * @module
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CatalogChangeLog, PositionedChange, StoredSnapshot } from './catalog-change-log.js';
import type { LoggedChange } from './catalog-change-log.js';

/**
 * A fresh, empty place for change logs, handed to the suite by an implementation's test file. `Extra`:
 * the kinds of change its logs hold besides the {@link LoggedChange}s (replication's patches), which the
 * suite never appends.
 */
export interface ChangeLogPlace<Extra = never> {
  /** Opens the log of `websiteId` here (again: the same log, as a restarted process finds it). */
  open(websiteId: string): Promise<CatalogChangeLog<LoggedChange | Extra>>;
  /**
   * Takes the medium of `websiteId`'s log out of reach (a file that cannot be made, the server's
   * connection cut), so that its next append fails; resolves with the function that brings it back.
   * Called on a log just opened, before its first append.
   */
  breakAppends(websiteId: string): Promise<() => Promise<void>>;
  /** Removes the place and everything in it (the logs opened are closed by then). */
  remove(): Promise<void>;
}

/** Changes of every kind, with text that needs escaping. */
const CHANGES: readonly LoggedChange[] = [
  { kind: 'upsert', products: [{ refId: 'a', title: 'Café ☕', price: '1.50' }, { refId: 'b', tags: ['x', 'y'], nested: { k: null } }] },
  { kind: 'delete', refIds: ['b', 'zz'] },
  { kind: 'replace', products: [] },
  { kind: 'upsert', products: [{ refId: 'line\nbreak', title: 'a "quoted" title' }] },
  { kind: 'upsert', products: [{ refId: 'c', price: 3 }] },
];

/** Snapshot bytes that say which snapshot they are. */
function snapshotOf(n: number): Uint8Array {
  return new Uint8Array([0xa1, n, 0x5e]);
}

/** The bytes of a stored snapshot, or of {@link snapshotOf} `n` (whatever array type the log hands back). */
function bytesOf(snapshot: StoredSnapshot | number | undefined): number[] | undefined {
  if (typeof snapshot === 'number') return [...snapshotOf(snapshot)];
  return snapshot && [...snapshot.data];
}

/** `read` is a suffix of `all`, and holds at least its last `atLeast` changes. */
function expectSuffix(read: readonly unknown[], all: readonly LoggedChange[], atLeast: number): void {
  expect(read.length).toBeGreaterThanOrEqual(atLeast);
  expect(read).toEqual(all.slice(all.length - read.length));
}

const changesOf = <C>(read: readonly PositionedChange<C>[]): C[] => read.map((p) => p.change);

/** Runs the change-log contract against logs kept in places made by `newPlace`. */
export function runChangeLogContract<Extra = never>(name: string, newPlace: () => Promise<ChangeLogPlace<Extra>>): void {
  describe(`catalog change log contract: ${name}`, () => {
    const places: ChangeLogPlace<Extra>[] = [];
    const open: CatalogChangeLog<LoggedChange | Extra>[] = [];
    async function place(): Promise<Pick<ChangeLogPlace<Extra>, 'open' | 'breakAppends'>> {
      const p = await newPlace();
      places.push(p);
      return {
        open: async (websiteId) => {
          const log = await p.open(websiteId);
          open.push(log);
          return log;
        },
        breakAppends: (websiteId) => p.breakAppends(websiteId),
      };
    }
    /** Closes a log (it is then opened again, as after a restart). */
    async function close(log: CatalogChangeLog<LoggedChange | Extra>): Promise<void> {
      open.splice(open.indexOf(log), 1);
      await log.close();
    }
    afterEach(async () => {
      await Promise.all(open.splice(0).map((log) => log.close()));
      await Promise.all(places.splice(0).map((p) => p.remove()));
    });

    it('reads back appended changes in order, with increasing positions, before and after a reopen', async () => {
      const here = await place();
      const log = await here.open('w1');
      expect(await log.readAfter(0)).toEqual([]);
      expect(await log.loadSnapshot()).toBeUndefined();
      const first = await log.append([CHANGES[0]!]);
      const last = await log.append(CHANGES.slice(1));
      expect(last).toBeGreaterThan(first);
      const read = await log.readAfter(0);
      expect(changesOf(read)).toEqual(CHANGES);
      expect(read[0]!.position).toBe(first);
      expect(read.at(-1)!.position).toBe(last);
      for (let i = 1; i < read.length; i++) expect(read[i]!.position).toBeGreaterThan(read[i - 1]!.position);
      // After a position: exactly the changes after it.
      expect(await log.readAfter(first)).toEqual(read.slice(1));
      expect(await log.readAfter(last)).toEqual([]);
      await close(log);
      const again = await here.open('w1');
      expect(changesOf(await again.readAfter(0))).toEqual(CHANGES);
    });

    it('writes concurrent appends in call order', async () => {
      const here = await place();
      const log = await here.open('w1');
      const positions = await Promise.all(CHANGES.map((c) => log.append([c])));
      for (let i = 1; i < positions.length; i++) expect(positions[i]).toBeGreaterThan(positions[i - 1]!);
      expect(changesOf(await log.readAfter(0))).toEqual(CHANGES);
    });

    it('fails an append it cannot make durable with STORE_FAILURE, and never reads any of it back', async () => {
      const here = await place();
      const log = await here.open('w1');
      const restore = await here.breakAppends('w1');
      await expect(log.append(CHANGES.slice(0, 2))).rejects.toMatchObject({ code: 'STORE_FAILURE' });
      await restore();
      // The log goes on with the next append.
      await log.append([CHANGES[2]!]);
      expect(changesOf(await log.readAfter(0))).toEqual([CHANGES[2]]);
      await close(log);
      expect(changesOf(await (await here.open('w1')).readAfter(0))).toEqual([CHANGES[2]]);
    });

    it('keeps the logs of two websites apart', async () => {
      const here = await place();
      const one = await here.open('w1');
      const two = await here.open('w/2 ü');
      await one.append([CHANGES[0]!]);
      await two.append([CHANGES[1]!]);
      await one.append([CHANGES[2]!]);
      await one.saveSnapshot(await one.append([CHANGES[3]!]), async () => snapshotOf(1));
      expect(changesOf(await two.readAfter(0))).toEqual([CHANGES[1]]);
      expect(await two.loadSnapshot()).toBeUndefined();
      await close(two);
      expect(changesOf(await (await here.open('w/2 ü')).readAfter(0))).toEqual([CHANGES[1]]);
    });

    it('stores a snapshot, and reading after its position gives every change it lacks', async () => {
      const here = await place();
      const log = await here.open('w1');
      await log.append([CHANGES[0]!]);
      const held = await log.append([CHANGES[1]!]);
      let encoded = 0;
      expect(await log.saveSnapshot(held, async () => { encoded++; return snapshotOf(1); })).toBe(true);
      expect(encoded).toBe(1);
      await log.append(CHANGES.slice(2));
      const loaded = await log.loadSnapshot();
      expect(bytesOf(loaded)).toEqual(bytesOf(1));
      expect(loaded!.position).toBeLessThanOrEqual(held);
      expectSuffix(changesOf(await log.readAfter(loaded!.position)), CHANGES, CHANGES.length - 2);
      await close(log);
      // As a restarted process finds it: the snapshot, and (at least) the changes after it.
      const again = await here.open('w1');
      const reloaded = await again.loadSnapshot();
      expect(bytesOf(reloaded)).toEqual(bytesOf(1));
      expectSuffix(changesOf(await again.readAfter(reloaded!.position)), CHANGES, CHANGES.length - 2);
    });

    it('lets go of the changes a stored snapshot holds', async () => {
      const here = await place();
      const log = await here.open('w1');
      await log.append([CHANGES[0]!]);
      const first = await log.append([CHANGES[1]!]);
      await log.saveSnapshot(first, async () => snapshotOf(1));
      await log.append([CHANGES[2]!]);
      const second = await log.append([CHANGES[3]!]);
      await log.saveSnapshot(second, async () => snapshotOf(2));
      await log.append([CHANGES[4]!]);
      // A shared log keeps the changes between the last two snapshots (a replica slightly behind
      // catches up from them); none at or before the first snapshot's position is left.
      expectSuffix(changesOf(await log.readAfter(0)), CHANGES, 1);
      expect((await log.readAfter(0)).length).toBeLessThanOrEqual(3);
      await close(log);
      const again = await here.open('w1');
      expect(bytesOf(await again.loadSnapshot())).toEqual(bytesOf(2));
      const left = changesOf(await again.readAfter(0));
      expectSuffix(left, CHANGES, 1);
      expect(left.length).toBeLessThanOrEqual(3);
    });

    it('refuses a snapshot older than the stored one, without encoding it', async () => {
      const here = await place();
      const log = await here.open('w1');
      const first = await log.append([CHANGES[0]!]);
      const second = await log.append([CHANGES[1]!]);
      expect(await log.saveSnapshot(second, async () => snapshotOf(2))).toBe(true);
      let encoded = false;
      expect(await log.saveSnapshot(first, async () => { encoded = true; return snapshotOf(1); })).toBe(false);
      expect(encoded).toBe(false);
      expect(bytesOf(await log.loadSnapshot())).toEqual(bytesOf(2));
    });
  });
}
