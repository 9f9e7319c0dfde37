// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * CRC-32/ISO-HDLC (ZIP, zlib, PNG), slice-by-16. For the core's own use: not in the library's
 * public API.
 *
 * @module
 */

/** Reflected form of the polynomial 0x04C11DB7. */
const POLYNOMIAL = 0xedb88320;

/**
 * Sixteen 256-entry tables, flat. Table 0 is the classic byte-at-a-time table; table `k` holds
 * the CRC contribution of a byte followed by `k` zero bytes. Built on first use.
 */
let tables: Int32Array | undefined;

/** Builds (once) and returns the slicing tables. */
function getTables(): Int32Array {
  if (tables !== undefined) return tables;
  const t = new Int32Array(16 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let bit = 0; bit < 8; bit++) c = c & 1 ? (c >>> 1) ^ POLYNOMIAL : c >>> 1;
    t[n] = c;
  }
  for (let k = 1; k < 16; k++) {
    for (let n = 0; n < 256; n++) {
      const c = t[(k - 1) * 256 + n]!;
      t[k * 256 + n] = (c >>> 8) ^ t[c & 0xff]!;
    }
  }
  tables = t;
  return t;
}

/**
 * CRC-32 (ISO-HDLC, the one ZIP and zlib use) of `data`, continuing from `previous`, so that
 * `crc32(b, crc32(a))` equals the CRC of `a` followed by `b`, as zlib's `crc32(crc, buf)` does.
 *
 * @param data The bytes.
 * @param previous The CRC of everything before `data`; 0 to start.
 * @returns The CRC as an unsigned 32-bit number.
 */
export function crc32(data: Uint8Array, previous = 0): number {
  const t = getTables();
  let crc = ~previous;
  const length = data.length;
  let i = 0;
  const whole = length & ~15;
  while (i < whole) {
    const a = crc ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24));
    const b = data[i + 4]! | (data[i + 5]! << 8) | (data[i + 6]! << 16) | (data[i + 7]! << 24);
    const c = data[i + 8]! | (data[i + 9]! << 8) | (data[i + 10]! << 16) | (data[i + 11]! << 24);
    const d = data[i + 12]! | (data[i + 13]! << 8) | (data[i + 14]! << 16) | (data[i + 15]! << 24);
    crc = t[0x0f00 | (a & 0xff)]! ^
      t[0x0e00 | ((a >>> 8) & 0xff)]! ^
      t[0x0d00 | ((a >>> 16) & 0xff)]! ^
      t[0x0c00 | (a >>> 24)]! ^
      t[0x0b00 | (b & 0xff)]! ^
      t[0x0a00 | ((b >>> 8) & 0xff)]! ^
      t[0x0900 | ((b >>> 16) & 0xff)]! ^
      t[0x0800 | (b >>> 24)]! ^
      t[0x0700 | (c & 0xff)]! ^
      t[0x0600 | ((c >>> 8) & 0xff)]! ^
      t[0x0500 | ((c >>> 16) & 0xff)]! ^
      t[0x0400 | (c >>> 24)]! ^
      t[0x0300 | (d & 0xff)]! ^
      t[0x0200 | ((d >>> 8) & 0xff)]! ^
      t[0x0100 | ((d >>> 16) & 0xff)]! ^
      t[d >>> 24]!;
    i += 16;
  }
  while (i < length) {
    crc = (crc >>> 8) ^ t[(crc ^ data[i]!) & 0xff]!;
    i++;
  }
  return ~crc >>> 0;
}
