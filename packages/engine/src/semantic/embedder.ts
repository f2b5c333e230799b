/**
 * The embedder interface: how aisle turns text into vectors for semantic ranking. aisle trains its own
 * model per website (see `text-model.ts`); a service that embeds aisle can plug its own model through
 * `createEngine({ embedders: [...] })` and name it in a website's `settings.semanticSearch.model`.
 * @module
 */

/**
 * A text → vector model. Vectors of one embedder are compared by cosine similarity, so they need not be
 * normalised, but they must all have {@link Embedder.dimensions} numbers. `embed` is called once per search
 * with the query and the texts of the products being re-ranked that are not cached yet (product vectors
 * are cached per product text and per `id` + `version`, so a new version re-embeds).
 */
export interface Embedder {
  /** Stable name of the model (what `settings.semanticSearch.model` names). Letters, digits, `._-`. */
  readonly id: string;
  /** Version of the model: changes whenever the same text may embed differently. */
  readonly version: string;
  /** Length of every vector. */
  readonly dimensions: number;
  /** Embeds a batch of texts, one vector per text, in order. May be async (a remote model). */
  embed(texts: readonly string[]): Float32Array[] | Promise<Float32Array[]>;
}

/** What `settings.ats_model` holds for a model: its id and version. */
export function modelLabel(embedder: Pick<Embedder, 'id' | 'version'>): string {
  return `${embedder.id}@${embedder.version}`;
}

/** Cosine similarity of two vectors of the same length (0 when either is all zeros). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
