/**
 * A small binary container for state made of typed arrays: a magic, a JSON header, then named typed
 * arrays back to back (each 8-byte aligned, so a reader gets aligned copies without parsing anything).
 * The recommendation models' checkpoint (recommend/model-checkpoint.ts) is written with it.
 *
 * Layout: the magic (8 bytes, latin1), a uint32 (little endian) header length, the header (JSON: the
 * caller's header and, per array, its name, element type and length), zero padding to a multiple of 8,
 * then each array's bytes, each padded to a multiple of 8, then a trailer of 8 bytes: the CRC-32 (uint32,
 * little endian) of every byte before it and 4 zero bytes. The checksum makes damage inside an array —
 * which no length check sees — a refused file rather than silently wrong state.
 * @module
 */
import { crc32 } from 'node:zlib';

/** The typed arrays a container holds. */
export type SectionArray = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float32Array | Float64Array;

// Append only: a type's position is its code in the file.
const TYPES = [Uint8Array, Uint16Array, Uint32Array, Int32Array, Float32Array, Float64Array] as const;

interface Header {
  header: unknown;
  arrays: { name: string; type: number; length: number }[];
}

const align8 = (n: number): number => Math.ceil(n / 8) * 8;

/**
 * The container's bytes: `magic` (8 characters), `header` (JSON-serialisable) and the arrays, in steps:
 * it yields after each array copied (a big state is copied between turns of the event loop).
 */
export function* encodeSectionsSteps(magic: string, header: unknown, arrays: ReadonlyMap<string, SectionArray>): Generator<void, Buffer, void> {
  if (magic.length !== 8) throw new Error('a section magic has 8 characters');
  const entries = [...arrays];
  const meta: Header = {
    header,
    arrays: entries.map(([name, a]) => {
      const type = TYPES.findIndex((T) => a instanceof T);
      if (type < 0) throw new Error(`unsupported array type for ${name}`);
      return { name, type, length: a.length };
    }),
  };
  const json = Buffer.from(JSON.stringify(meta), 'utf8');
  let size = align8(12 + json.length);
  for (const [, a] of entries) size += align8(a.byteLength);
  size += TRAILER_BYTES;
  // Not zero-filled first (tens of MB for a big website's models): every byte is written below, the
  // padding explicitly, so equal states give equal bytes.
  const out = Buffer.allocUnsafe(size);
  out.write(magic, 0, 'latin1');
  out.writeUInt32LE(json.length, 8);
  json.copy(out, 12);
  let at = 12 + json.length;
  let checksum = 0;
  let summed = 0;
  for (const [, a] of entries) {
    out.fill(0, at, align8(at));
    at = align8(at);
    // Summed array by array, so a big state is never summed in one go.
    checksum = crc32(out.subarray(summed, at), checksum);
    summed = at;
    Buffer.from(a.buffer, a.byteOffset, a.byteLength).copy(out, at);
    at += a.byteLength;
    yield;
  }
  const end = size - TRAILER_BYTES;
  out.fill(0, at, size);
  out.writeUInt32LE(crc32(out.subarray(summed, end), checksum), end);
  return out;
}

/** The trailer: the CRC-32 of the bytes before it and 4 zero bytes (keeping the 8-byte alignment). */
const TRAILER_BYTES = 8;

/**
 * The header and arrays of a container written by {@link encodeSectionsSteps} with `magic`; each array is
 * a copy on its own buffer. Throws on a foreign, truncated or malformed file.
 */
export function decodeSections(magic: string, bytes: Uint8Array): { header: unknown; arrays: Map<string, SectionArray> } {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < 12 + TRAILER_BYTES || buffer.toString('latin1', 0, 8) !== magic) throw new Error(`not a ${magic} file`);
  const end = buffer.length - TRAILER_BYTES;
  if (crc32(buffer.subarray(0, end)) !== buffer.readUInt32LE(end)) throw new Error(`${magic} file is damaged (checksum mismatch)`);
  const length = buffer.readUInt32LE(8);
  if (12 + length > end) throw new Error(`${magic} file is truncated`);
  const meta = JSON.parse(buffer.toString('utf8', 12, 12 + length)) as Header;
  const arrays = new Map<string, SectionArray>();
  let at = align8(12 + length);
  for (const { name, type, length: count } of meta.arrays) {
    const T = TYPES[type];
    if (T === undefined || !Number.isInteger(count) || count < 0) throw new Error(`${magic} file has a malformed array ${name}`);
    const byteLength = count * T.BYTES_PER_ELEMENT;
    if (at + byteLength > end) throw new Error(`${magic} file is truncated`);
    const copy = new T(count);
    new Uint8Array(copy.buffer).set(buffer.subarray(at, at + byteLength));
    arrays.set(name, copy);
    at += align8(byteLength);
  }
  if (at !== end) throw new Error(`${magic} file has trailing bytes`);
  return { header: meta.header, arrays };
}
