/**
 * The worker thread that trains the built-in model of a big catalog (see train-in-worker.ts): it
 * receives the products' texts in batches, in doc order, runs the training's first pass on each batch
 * as it arrives and, when asked to finish, the rest of the training in one go — none of it on the
 * thread that serves searches. Its options come as `workerData`.
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads';
import { TextModelTrainer, type TextModelOptions, type TextModelParts } from './text-model.js';

/** A message to the worker: the next texts, in doc order, or the end of them. */
export type TrainerRequest = { texts: string[] } | { finish: true };

/** The worker's answer to `finish`: the model's parts, or why the training failed. */
export type TrainerAnswer = { model: TextModelParts } | { error: string };

const port = parentPort!;
const trainer = new TextModelTrainer(workerData as TextModelOptions);
port.on('message', (request: TrainerRequest) => {
  if ('texts' in request) {
    for (const text of request.texts) trainer.add(text);
    return;
  }
  let answer: TrainerAnswer;
  try {
    const steps = trainer.finish();
    let next = steps.next();
    while (!next.done) next = steps.next();
    const model = next.value;
    answer = { model: { version: model.version, dimensions: model.dimensions, ...model.parts() } };
  } catch (err) {
    answer = { error: err instanceof Error ? err.message : String(err) };
  }
  // The vectors move to the main thread (no copy).
  port.postMessage(answer, 'model' in answer ? [answer.model.vectors.buffer as ArrayBuffer, answer.model.idf.buffer as ArrayBuffer] : []);
});
