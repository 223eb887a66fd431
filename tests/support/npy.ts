// Writes NumPy .npy files (format 1.0, little-endian float32/float64) for the tests.
export function npy(shape: number[], data: Float32Array | Float64Array): Uint8Array {
  const descr = data instanceof Float32Array ? '<f4' : '<f8';
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  header += ' '.repeat(63 - ((header.length + 10) % 64)) + '\n';
  const prefix = new Uint8Array(10 + header.length);
  prefix.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  new DataView(prefix.buffer).setUint16(8, header.length, true);
  prefix.set(new TextEncoder().encode(header), 10);
  const bytes = new Uint8Array(prefix.length + data.byteLength);
  bytes.set(prefix);
  bytes.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), prefix.length);
  return bytes;
}
