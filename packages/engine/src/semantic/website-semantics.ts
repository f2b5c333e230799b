/**
 * Semantic search state of one website: the built-in {@link TextModel} trained on its catalog (in time
 * slices, retrained after catalog changes), the embedders plugged in by the host service, and a cache
 * of product vectors. The search pipeline asks it for the similarity of a query to the candidates it
 * re-ranks (see `search/rerank.ts`); the matching itself (inline or on the worker pool) is untouched,
 * so semantic ranking works the same for catalogs of every size.
 * @module
 */
import type { Catalog } from '../catalog/catalog.js';
import { runInSlices } from '../catalog/build/time-slices.js';
import { liveProductList } from '../catalog/changes/tombstones.js';
import type { Product } from '../types.js';
import { cosine, type Embedder, modelLabel } from './embedder.js';
import { fieldText, productText, TEXT_MODEL_ID, TextModel, trainTextModel, type TextModelOptions } from './text-model.js';
import { catalogTextFingerprint, loadTextModel, saveTextModel } from './text-model-file.js';
import { trainTextModelInWorker } from './train-in-worker.js';

/** Wait after the last catalog change before retraining, so a burst of upserts trains once. */
export const RETRAIN_DELAY_MS = 2_000;

/**
 * Products from which the built-in model trains on a worker thread: a training costs ~50 µs of CPU a
 * product, so 10,000 products take half a second in slices, while a worker starts in tens of ms and
 * takes the seconds of a big catalog — and their collector pauses — off the event loop (issue #27).
 */
export const TRAIN_IN_WORKER_FROM = 10_000;

/** Product vectors kept per website (least recently used dropped first). */
export const VECTOR_CACHE_SIZE = 50_000;

/** Options of {@link WebsiteSemantics}. */
export interface WebsiteSemanticsOptions {
  /** Embedders of the host service by id (besides the built-in model). */
  embedders?: ReadonlyMap<string, Embedder>;
  retrainDelayMs?: number;
  textModel?: TextModelOptions;
  /** Called when a training fails (the previous model keeps ranking): the engine reports it as `semantic-training`. */
  onError?: (err: unknown) => void;
  /**
   * Catalogs of at least this many products train the built-in model on a worker thread
   * (train-in-worker.ts; default {@link TRAIN_IN_WORKER_FROM}); smaller ones in time slices on the
   * calling thread (the worker's start costs more than their whole training).
   */
  trainInWorkerFrom?: number;
  /**
   * Where the built-in model is kept (text-model-file.ts): {@link WebsiteSemantics.restore} reads it,
   * every training writes it. Without it the model lives in memory only.
   */
  modelFile?: string;
}

/** The similarity of a query to each candidate, and the model that computed it. */
export interface SemanticScores {
  model: Embedder;
  /** Cosine similarity per candidate, in their order. */
  similarities: Float64Array;
}

/** `steps` stopped at the next slice once `isClosed()` (a closed engine does not finish a training for nobody). */
function* untilClosed(steps: Generator<void, TextModel, void>, isClosed: () => boolean): Generator<void, TextModel | undefined, void> {
  for (;;) {
    if (isClosed()) return undefined;
    const next = steps.next();
    if (next.done) return next.value;
    yield;
  }
}

/** Names of the full-text fields of the catalog's current version: the text the models read. */
function textFields(catalog: Catalog): string[] {
  const { index } = catalog.state;
  return index.fullText.fieldIds.map((fid) => index.fields[fid].name);
}

/** See module doc. */
export class WebsiteSemantics {
  private model: TextModel | undefined;
  private trainedVersion = -1;
  private training: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private wanted = false;
  private closed = false;
  /** Product vectors by product revision (see product-store.ts), least recently used first. */
  private readonly cache = new Map<number, { label: string; vector: Float32Array }>();
  private readonly embedders: ReadonlyMap<string, Embedder>;
  private saving: Promise<void> = Promise.resolve();
  /** Trainings completed (tests, metrics). */
  trainings = 0;

  constructor(private readonly catalog: Catalog, private readonly options: WebsiteSemanticsOptions = {}) {
    this.embedders = options.embedders ?? new Map();
  }

  /**
   * Reads the built-in model saved in the model file, if any (call before {@link setBuiltInWanted}): it
   * ranks at once. When it was trained on the words the catalog has now, it is current and nothing
   * retrains; otherwise it ranks until the retraining that the catalog's changes call for replaces it
   * (as the previous model does after any change). An unreadable file is reported and ignored.
   */
  async restore(): Promise<void> {
    const file = this.options.modelFile;
    if (!file || this.model) return;
    let saved: Awaited<ReturnType<typeof loadTextModel>>;
    try {
      saved = await loadTextModel(file);
    } catch (err) {
      this.options.onError?.(err);
      return;
    }
    if (!saved || this.model) return;
    this.model = saved.model;
    if (saved.catalog === catalogTextFingerprint(this.catalog.state, textFields(this.catalog))) this.trainedVersion = this.catalog.version;
  }

  /** Turns training of the built-in model on (when a website's settings use it) or off. */
  setBuiltInWanted(wanted: boolean): void {
    this.wanted = wanted;
    if (wanted && this.trainedVersion !== this.catalog.version) this.startTraining();
  }

  /**
   * Called by searches that use the built-in model: starts its training if nothing asked for it yet, and
   * schedules a retraining when the catalog changed by a path that did not say so (changes applied from
   * another replica's log, patches).
   */
  private keepFresh(): void {
    if (!this.wanted) this.setBuiltInWanted(true);
    else if (this.catalog.version !== this.trainedVersion && !this.training && !this.timer) this.catalogChanged();
  }

  /** The catalog changed: retrain the built-in model after a quiet moment (when it is in use). */
  catalogChanged(): void {
    if (!this.wanted || this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.startTraining(), this.options.retrainDelayMs ?? RETRAIN_DELAY_MS);
    this.timer.unref();
  }

  private startTraining(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.training || this.closed) return;
    const version = this.catalog.version;
    const state = this.catalog.state;
    // Price and stock updates (value patches of other fields) leave the words as they were: no retraining.
    const fields = textFields(this.catalog);
    if (this.model && this.catalog.valuesOnlyChangedSince(this.trainedVersion, (f) => fields.includes(f))) {
      this.trainedVersion = version;
      return;
    }
    const products = liveProductList(state);
    const isClosed = (): boolean => this.closed;
    const trained = products.length >= (this.options.trainInWorkerFrom ?? TRAIN_IN_WORKER_FROM)
      ? trainTextModelInWorker(products, fields, this.options.textModel ?? {}, isClosed)
      : runInSlices(untilClosed(trainTextModel(products, fields, this.options.textModel), isClosed));
    this.training = trained
      .then((model) => {
        if (!model) return;
        this.model = model;
        this.trainedVersion = version;
        this.trainings++;
        this.save(model, catalogTextFingerprint(state, fields));
      }, (err: unknown) => this.options.onError?.(err))
      .finally(() => {
        this.training = undefined;
        // Changes made while training: one more round.
        if (this.wanted && !this.closed && this.catalog.version !== this.trainedVersion && this.model !== undefined) this.catalogChanged();
      });
  }

  /** Writes a trained model to the model file, one write at a time; a failed write is reported (the model still ranks). */
  private save(model: TextModel, catalog: string): void {
    const file = this.options.modelFile;
    if (!file) return;
    this.saving = this.saving.then(() => saveTextModel(file, model, catalog)).catch((err: unknown) => this.options.onError?.(err));
  }

  /** Resolves once no training is running or due and the last trained model is written (tests, benchmarks, readiness). */
  async settled(): Promise<void> {
    while (this.training || this.timer) {
      if (this.timer) this.startTraining();
      await this.training;
    }
    await this.saving;
  }

  /** The built-in model, once trained. */
  get textModel(): TextModel | undefined {
    return this.model;
  }

  /**
   * The embedder that `model` names: the built-in model (undefined until its first training ends) or
   * one of the host's embedders.
   */
  embedder(model: string): Embedder | undefined {
    return model === TEXT_MODEL_ID ? this.model : this.embedders.get(model);
  }

  /**
   * Similarity of `query` to each candidate under `model`. Undefined when the model cannot rank: not
   * trained yet, or the query has no word it knows (an all-zero vector ranks nothing). `fieldWeight`
   * (the search's BM25F field weights) weighs the words of each field in the built-in model's product
   * vectors; a host embedder gets the product's text as one string. `revisions[i]` is candidate i's
   * revision (see product-store.ts): product vectors are cached by it.
   */
  async scores(
    model: string, query: string, candidates: readonly Product[], revisions: ArrayLike<number>, fieldWeight: (field: string) => number = () => 1,
  ): Promise<SemanticScores | undefined> {
    if (model === TEXT_MODEL_ID) this.keepFresh();
    const embedder = this.embedder(model);
    if (!embedder || candidates.length === 0) return undefined;
    const fields = textFields(this.catalog);
    // The cache key includes the field weights the built-in model used (they are query-time settings).
    const label = embedder instanceof TextModel ? `${modelLabel(embedder)}|${fields.map((f) => fieldWeight(f)).join(',')}` : modelLabel(embedder);
    const missing: number[] = [];
    const vectors: (Float32Array | undefined)[] = candidates.map((_, i) => {
      const hit = this.cache.get(revisions[i]);
      if (hit && hit.label === label) {
        this.cache.delete(revisions[i]);
        this.cache.set(revisions[i], hit);
        return hit.vector;
      }
      missing.push(i);
      return undefined;
    });
    const texts = [query, ...missing.map((i) => productText(candidates[i], fields))];
    const embedded = embedder instanceof TextModel
      ? [embedder.embedOne(query), ...missing.map((i) => embedder.embedWeighted(fields.map((f) => ({ text: fieldText(candidates[i], f), weight: fieldWeight(f) }))))]
      : await embedder.embed(texts);
    if (!Array.isArray(embedded) || embedded.length !== texts.length) {
      throw new Error(`embedder "${embedder.id}" returned ${Array.isArray(embedded) ? embedded.length : 'no'} vectors for ${texts.length} texts`);
    }
    for (const v of embedded) {
      if (!(v instanceof Float32Array) || v.length !== embedder.dimensions) {
        throw new Error(`embedder "${embedder.id}" returned a vector that is not a Float32Array of ${embedder.dimensions} numbers`);
      }
    }
    const queryVector = embedded[0];
    if (!queryVector.some((x) => x !== 0)) return undefined;
    missing.forEach((i, k) => {
      vectors[i] = embedded[k + 1];
      this.cache.set(revisions[i], { label, vector: embedded[k + 1] });
    });
    while (this.cache.size > VECTOR_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    const similarities = Float64Array.from(vectors, (v) => cosine(queryVector, v!));
    return { model: embedder, similarities };
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
