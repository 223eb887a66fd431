// Reader for NumPy .npy files (format versions 1-3): 1-D or 2-D little-endian float32/float64.

export interface NpyArray {
  shape: number[];
  data: Float32Array | Float64Array;
}

export function parseNpy(bytes: Uint8Array): NpyArray {
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b)) {
    throw new Error('not a .npy file (bad magic)');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const major = bytes[6];
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const headerStart = major === 1 ? 10 : 12;
  const header = new TextDecoder('latin1').decode(bytes.subarray(headerStart, headerStart + headerLength));
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || !fortran || shapeText === undefined) throw new Error('unreadable .npy header');
  if (fortran === 'True') throw new Error('Fortran-ordered .npy arrays are not supported');
  const shape = shapeText.split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  if (shape.length < 1 || shape.length > 2 || shape.some((n) => !Number.isInteger(n) || n < 0)) {
    throw new Error(`.npy shape (${shapeText}) is not 1-D or 2-D`);
  }
  const itemSize = descr === '<f4' ? 4 : descr === '<f8' ? 8 : 0;
  if (!itemSize) throw new Error(`.npy dtype ${descr} is not little-endian float32 or float64`);
  const count = shape.reduce((a, b) => a * b, 1);
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
