/**
 * One replica for the replica benchmark, in its own process: `createServer` from the HTTP adapter
 * around an engine on the PostgreSQL store (options from the parent), on a free port of 127.0.0.1.
 * Sends `{type: 'ready', url, startMs}` once it serves (the engine resolves only once its catalogs
 * hold the shared change log: that is the replica's readiness). Then answers `memory` with
 * `{type: 'memory', rssBytes, retainedBytes}` (heap + array buffers + growable shared buffers after a GC) and `stop` by closing
 * and exiting.
 * @module
 */
import type { EngineOptions } from '@aisle/engine';
import { growableSharedBytes } from '@aisle/engine/internal';
import { createServer, type AisleServer } from '@aisle/http-adapter';

let server: AisleServer | undefined;
process.on('message', (message: { cmd: 'start'; engineOptions: EngineOptions; adminToken: string } | { cmd: 'memory' } | { cmd: 'stop' }) => {
  void (async () => {
    if (message.cmd === 'start') {
      const started = performance.now();
      server = await createServer({ engineOptions: message.engineOptions, adminTokens: [message.adminToken], port: 0, host: '127.0.0.1', logger: false });
      process.send!({ type: 'ready', url: server.url, startMs: performance.now() - started });
    } else if (message.cmd === 'memory') {
      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      gc?.();
      const m = process.memoryUsage();
      process.send!({ type: 'memory', rssBytes: m.rss, retainedBytes: m.heapUsed + m.arrayBuffers + growableSharedBytes() });
    } else {
      await server?.close();
      process.send!({ type: 'stopped' }, () => process.exit(0));
    }
  })().catch((err: unknown) => {
    process.send!({ type: 'error', error: String((err as Error)?.stack ?? err) }, () => process.exit(1));
  });
});
