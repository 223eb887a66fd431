// Reader for NumPy .npy files (format versions 1-3): 1-D or 2-D little-endian float32/float64.
// Anything else, or a damaged file, is an Error whose message says what is wrong.

/** A parsed .npy array: its shape (1-D or 2-D, row-major) and its values. */
export interface NpyArray {
  shape: number[];
  data: Float32Array | Float64Array;
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
// Larger arrays are not logits of one model; refusing them keeps a bad header from asking for
// gigabytes.
const MAX_ELEMENTS = 2 ** 28;

/** Reads a .npy file's bytes (1-D or 2-D little-endian float32/float64, format 1–3); throws an Error saying what is wrong otherwise. */
export function parseNpy(bytes: Uint8Array): NpyArray {
  if (!(bytes instanceof Uint8Array)) throw new Error('a .npy file must be given as bytes');
  if (bytes.length < 10 || MAGIC.some((b, i) => bytes[i] !== b)) throw new Error('not a .npy file (bad magic)');
  const major = bytes[6];
  if (major < 1 || major > 3) throw new Error(`.npy format version ${major} is not supported (1 to 3 are)`);
  const headerStart = major === 1 ? 10 : 12;
  if (bytes.length < headerStart) throw new Error('.npy file is truncated inside its header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  if (headerStart + headerLength > bytes.length) throw new Error('.npy file is truncated inside its header');
  const header = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(headerStart, headerStart + headerLength));
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || !fortran || shapeText === undefined) throw new Error('unreadable .npy header');
  if (fortran === 'True') throw new Error('Fortran-ordered .npy arrays are not supported');
  // Decimal digits only: Number() would also read '0x4' or '1e3'.
  const entries = shapeText.split(',').map((s) => s.trim()).filter(Boolean);
  if (entries.some((entry) => !/^\d+$/.test(entry))) throw new Error(`.npy shape (${shapeText}) is not a tuple of decimal sizes`);
  const shape = entries.map(Number);
  if (shape.length < 1 || shape.length > 2 || shape.some((n) => !Number.isSafeInteger(n) || n < 0)) {
    throw new Error(`.npy shape (${shapeText}) is not 1-D or 2-D`);
  }
  const itemSize = descr === '<f4' ? 4 : descr === '<f8' ? 8 : 0;
  if (!itemSize) throw new Error(`.npy dtype ${descr} is not little-endian float32 or float64`);
  const count = shape.reduce((a, b) => a * b, 1);
  if (count > MAX_ELEMENTS) throw new Error(`.npy array of ${count} values is larger than ${MAX_ELEMENTS}`);
  const offset = headerStart + headerLength;
  if (bytes.length < offset + count * itemSize) throw new Error('.npy file is truncated');
  // Copy so the data is aligned whatever the header length.
  const raw = bytes.slice(offset, offset + count * itemSize).buffer;
  return { shape, data: itemSize === 4 ? new Float32Array(raw) : new Float64Array(raw) };
}

/** Row `position` of a 2-D array, or the whole of a 1-D one. */
export function npyRow(array: NpyArray, position?: number): Float32Array | Float64Array {
  if (array.shape.length === 1) return array.data;
  const [rows, columns] = array.shape;
  if (position === undefined) {
    throw new Error(`the array is 2-D (${rows} × ${columns}); choose a row with a position`);
  }
  if (!Number.isInteger(position) || position < 0 || position >= rows) {
    throw new Error(`position ${position} is outside [0, ${rows})`);
  }
  return array.data.subarray(position * columns, (position + 1) * columns);
}
