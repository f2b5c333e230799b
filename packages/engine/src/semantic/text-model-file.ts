/**
 * The built-in model's file: a trained {@link TextModel} kept beside the catalog snapshot, so a restart
 * ranks with the same model (same `ats_model` version) at once instead of answering in the plain order
 * until a retraining ends — seconds to minutes on a large catalog (docs/semantic-search.md).
 *
 * Layout: the magic `AISLERI1`, a uint32 (little endian) header length, the header (JSON: model version,
 * dimensions, words per text, the fingerprint of the catalog text it was trained on, the words by row),
 * zero padding to a multiple of 4, then the vectors (rows × dimensions float32) and the IDFs (rows
 * float32). Written to a temporary file and renamed: a crash leaves the previous file whole.
 * @module
 */
import { rename, writeFile } from 'node:fs/promises';
import { readFileIfPresent } from '../util/durable-file.js';
import type { CatalogState } from '../catalog/catalog-index.js';
import { textModelFromParts, type TextModel } from './text-model.js';

const MAGIC = 'AISLERI1';

interface Header {
  version: string;
  dimensions: number;
  maxWordsPerText: number;
  /** {@link catalogTextFingerprint} of the catalog version the model was trained on. */
  catalog: string;
  words: string[];
}

/**
 * A fingerprint of what the built-in model learns from a catalog version: its product count, the text
 * fields read, and the full-text vocabulary with each word's document frequency. Equal fingerprints: the
 * same words in the same number of products, so a training would give the same model. One pass over
 * the vocabulary (milliseconds), not over the products.
 */
export function catalogTextFingerprint(state: CatalogState, fields: readonly string[]): string {
  let h = 0x811c9dc5;
  const mix = (text: string): void => {
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  };
  mix(`${state.index.docCount}|${fields.join(',')}|`);
  const { vocabulary } = state;
  const { termDocFreq } = state.index.fullText;
  for (let t = 0; t < vocabulary.length; t++) mix(`${vocabulary[t]}:${termDocFreq[t]};`);
  return `${h.toString(16).padStart(8, '0')}-${vocabulary.length}`;
}

/** The file's bytes for `model`, trained on a catalog of fingerprint `catalog`. */
export function encodeTextModel(model: TextModel, catalog: string): Buffer {
  const { words, vectors, idf, maxWordsPerText } = model.parts();
  const header: Header = { version: model.version, dimensions: model.dimensions, maxWordsPerText, catalog, words };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const start = Math.ceil((MAGIC.length + 4 + json.length) / 4) * 4;
  const out = Buffer.alloc(start + (vectors.length + idf.length) * 4);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(json.length, MAGIC.length);
  json.copy(out, MAGIC.length + 4);
  Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength).copy(out, start);
  Buffer.from(idf.buffer, idf.byteOffset, idf.byteLength).copy(out, start + vectors.byteLength);
  return out;
}

/** The model in `bytes` and the catalog fingerprint it was trained on; throws on a damaged or foreign file. */
export function decodeTextModel(bytes: Buffer): { model: TextModel; catalog: string } {
  if (bytes.length < MAGIC.length + 4 || bytes.toString('latin1', 0, MAGIC.length) !== MAGIC) throw new Error('not an aisle-ri model file');
  const length = bytes.readUInt32LE(MAGIC.length);
  const header = JSON.parse(bytes.toString('utf8', MAGIC.length + 4, MAGIC.length + 4 + length)) as Header;
  const rows = header.words.length;
  const start = Math.ceil((MAGIC.length + 4 + length) / 4) * 4;
  if (bytes.length !== start + rows * (header.dimensions + 1) * 4) throw new Error('aisle-ri model file has the wrong size');
  // A copy: the vectors get their own aligned buffer, not a view into the file's.
  const floats = new Float32Array(bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + bytes.length));
  const vectors = floats.subarray(0, rows * header.dimensions);
  const idf = floats.subarray(rows * header.dimensions);
  return { model: textModelFromParts({ version: header.version, dimensions: header.dimensions, words: header.words, vectors, idf, maxWordsPerText: header.maxWordsPerText }), catalog: header.catalog };
}

/** Writes `model` to `file` atomically (temporary file, then rename). */
export async function saveTextModel(file: string, model: TextModel, catalog: string): Promise<void> {
  const temp = `${file}.tmp`;
  await writeFile(temp, encodeTextModel(model, catalog));
  await rename(temp, file);
}

/** Reads the model saved in `file`, or undefined when there is none. */
export async function loadTextModel(file: string): Promise<{ model: TextModel; catalog: string } | undefined> {
  const bytes = await readFileIfPresent(file);
  return bytes === undefined ? undefined : decodeTextModel(bytes);
}
