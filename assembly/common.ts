// Copyright 2026 the taskpack authors. MIT license.
/**
 * What the AssemblyScript codecs share: reading and writing linear memory as arrays, and the
 * RFC 1951 tables (as `lib/zip/deflate_tables.ts` has them).
 */

// --- Memory --------------------------------------------------------------------------------------

@inline export function i32At(base: usize, i: i32): i32 {
  return load<i32>(base + (<usize>i << 2));
}
@inline export function setI32(base: usize, i: i32, v: i32): void {
  store<i32>(base + (<usize>i << 2), v);
}
@inline export function u8At(base: usize, i: i32): i32 {
  return <i32>load<u8>(base + <usize>i);
}
@inline export function setU8(base: usize, i: i32, v: i32): void {
  store<u8>(base + <usize>i, <u8>v);
}
@inline export function u16At(base: usize, i: i32): i32 {
  return <i32>load<u16>(base + (<usize>i << 1));
}
@inline export function setU16(base: usize, i: i32, v: i32): void {
  store<u16>(base + (<usize>i << 1), <u16>v);
}
export function fillI32(base: usize, from: i32, to: i32, v: i32): void {
  if (v == 0) memory.fill(base + (<usize>from << 2), 0, <usize>(to - from) << 2);
  else for (let i = from; i < to; i++) setI32(base, i, v);
}
export function fillU8(base: usize, count: i32, v: i32): void {
  memory.fill(base, <u8>v, <usize>count);
}

// --- RFC 1951 tables ----------------------------------------------------------------------------

export const LENGTH_BASE = memory.data<i32>([
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
  163, 195, 227, 258,
]);
export const LENGTH_EXTRA = memory.data<i32>([
  0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
]);
export const DISTANCE_BASE = memory.data<i32>([
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
  2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
]);
export const DISTANCE_EXTRA = memory.data<i32>([
  0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
]);
export const CODE_LENGTH_ORDER = memory.data<i32>([
  16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
]);
