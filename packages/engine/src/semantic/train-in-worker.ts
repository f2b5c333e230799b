/**
 * Trains the built-in model on a worker thread (text-model-worker.ts): the calling thread only reads
 * each product's text — in time slices, a few microseconds a product — and posts them in batches; the
 * tokenising, the counting and the vectors (seconds of CPU and hundreds of MB of arrays at a million
 * products, whose allocation and collection paused the event loop for up to seconds) happen on the
 * worker. The model is the one `trainTextModel` gives on the same texts in the same order.
 * @module
 */
import type { Worker } from 'node:worker_threads';
import { runInSlices } from '../catalog/build/time-slices.js';
import type { ProductList } from '../types.js';
import { startWorker } from '../util/worker-file.js';
import { productText, textModelFromParts, type TextModel, type TextModelOptions } from './text-model.js';
import type { TrainerAnswer, TrainerRequest } from './text-model-worker.js';

/** Texts posted to the worker per message. */
const TEXTS_PER_MESSAGE = 2048;
/** Products read between two checks of the slice's time. */
const PRODUCTS_PER_STEP = 64;

/**
 * The model of `products`' texts (read through `fields`), trained on a worker thread; undefined when
 * `isClosed()` turned true meanwhile (the worker is then stopped). Rejects when the worker fails.
 */
export async function trainTextModelInWorker(
  products: ProductList, fields: readonly string[], options: TextModelOptions, isClosed: () => boolean,
): Promise<TextModel | undefined> {
  const worker: Worker = startWorker(import.meta.url, './text-model-worker', { workerData: options });
  const post = (request: TrainerRequest): void => worker.postMessage(request);
  const answered = new Promise<TrainerAnswer>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the semantic training worker exited (code ${code}) before answering`)));
  });
  // Its rejection is awaited below, or dropped with the worker when the engine closes first.
  answered.catch(() => undefined);
  try {
    function* feed(): Generator<void, boolean, void> {
      let batch: string[] = [];
      for (let d = 0; d < products.length; d++) {
        batch.push(productText(products.get(d), fields));
        if (batch.length === TEXTS_PER_MESSAGE) {
          post({ texts: batch });
          batch = [];
        }
        if (d % PRODUCTS_PER_STEP === PRODUCTS_PER_STEP - 1) {
          if (isClosed()) return false;
          yield;
        }
      }
      post({ texts: batch });
      return true;
    }
    if (!(await runInSlices(feed()))) return undefined;
    post({ finish: true });
    const answer = await answered;
    if ('error' in answer) throw new Error(`the semantic training failed: ${answer.error}`);
    return isClosed() ? undefined : textModelFromParts(answer.model);
  } finally {
    await worker.terminate();
  }
}
