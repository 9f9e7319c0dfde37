// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Incremental SHA-256 (FIPS 180-4) in plain TypeScript. For the core's own use: not in the
 * library's public API.
 *
 * @module
 */
import { toHex } from "./bytes.ts";

/** Round constants: the first 32 fractional bits of the cube roots of the first 64 primes. */
const K = new Int32Array([
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
]);

/** Initial hash: the first 32 fractional bits of the square roots of the first 8 primes. */
const INITIAL = [
  0x6a09e667,
  0xbb67ae85,
  0x3c6ef372,
  0xa54ff53a,
  0x510e527f,
  0x9b05688c,
  0x1f83d9ab,
  0x5be0cd19,
] as const;

/**
 * Runs the compression function over every whole 64-byte block of `bytes[start, end)`.
 * `end - start` must be a multiple of 64. Reads the input in place, without copying.
 */
function compressBlocks(
  state: Int32Array,
  w: Int32Array,
  bytes: Uint8Array,
  start: number,
  end: number,
): void {
  let h0 = state[0]!;
  let h1 = state[1]!;
  let h2 = state[2]!;
  let h3 = state[3]!;
  let h4 = state[4]!;
  let h5 = state[5]!;
  let h6 = state[6]!;
  let h7 = state[7]!;
  for (let p = start; p < end; p += 64) {
    for (let t = 0, q = p; t < 16; t++, q += 4) {
      w[t] = (bytes[q]! << 24) | (bytes[q + 1]! << 16) | (bytes[q + 2]! << 8) | bytes[q + 3]!;
    }
    for (let t = 16; t < 64; t++) {
      const x = w[t - 15]!;
      const y = w[t - 2]!;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[t] = (s1 + w[t - 7]! + s0 + w[t - 16]!) | 0;
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let f = h5;
    let g = h6;
    let h = h7;
    for (let t = 0; t < 64; t++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = g ^ (e & (f ^ g));
      const t1 = (h + S1 + ch + K[t]! + w[t]!) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) | (c & (a | b));
      const t2 = (S0 + maj) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  state[0] = h0;
  state[1] = h1;
  state[2] = h2;
  state[3] = h3;
  state[4] = h4;
  state[5] = h5;
  state[6] = h6;
  state[7] = h7;
}

/**
 * Scratch for the message schedule: {@linkcode compressBlocks} fills it anew for every block,
 * so every hasher can share it (thousands of small files would otherwise each allocate one).
 */
const SCHEDULE = new Int32Array(64);
/** Scratch for a digest on its way to hex. */
const DIGEST = new Uint8Array(32);

/**
 * An incremental SHA-256. Feed bytes with {@linkcode Sha256.update} in chunks of any size,
 * then call {@linkcode Sha256.digest} or {@linkcode Sha256.digestHex} once; the hasher cannot
 * be fed after that.
 */
export class Sha256 {
  // One buffer per hasher: the state (8 words), then the partial block (64 bytes).
  readonly #state: Int32Array;
  readonly #buffer: Uint8Array;
  #buffered = 0;
  #length = 0;
  #finished = false;

  constructor() {
    const memory = new ArrayBuffer(96);
    this.#state = new Int32Array(memory, 0, 8);
    this.#state.set(INITIAL);
    this.#buffer = new Uint8Array(memory, 32, 64);
  }

  /**
   * Feeds more bytes.
   *
   * @param data The bytes; any length, including zero.
   * @throws {TypeError} When the digest was already taken.
   */
  update(data: Uint8Array): void {
    if (this.#finished) {
      throw new TypeError("Cannot update SHA-256: the digest was already taken");
    }
    const length = data.length;
    if (length === 0) return;
    this.#length += length;
    let offset = 0;
    if (this.#buffered > 0) {
      const take = Math.min(64 - this.#buffered, length);
      this.#buffer.set(data.subarray(0, take), this.#buffered);
      this.#buffered += take;
      offset = take;
      if (this.#buffered < 64) return;
      compressBlocks(this.#state, SCHEDULE, this.#buffer, 0, 64);
      this.#buffered = 0;
    }
    const whole = offset + ((length - offset) & ~63);
    if (whole > offset) {
      compressBlocks(this.#state, SCHEDULE, data, offset, whole);
    }
    if (whole < length) {
      this.#buffer.set(data.subarray(whole), 0);
      this.#buffered = length - whole;
    }
  }

  /**
   * Finishes the hash. Calling it again returns the same digest.
   *
   * @returns The 32-byte digest (a fresh copy each call).
   */
  digest(): Uint8Array {
    return this.#digestInto(new Uint8Array(32));
  }

  /**
   * Finishes the hash, as lower-case hex.
   *
   * @returns 64 hex digits.
   */
  digestHex(): string {
    return toHex(this.#digestInto(DIGEST));
  }

  /** Pads and compresses the last block (once), and writes the digest into `out`. */
  #digestInto(out: Uint8Array): Uint8Array {
    if (!this.#finished) {
      this.#finished = true;
      const buffer = this.#buffer;
      let used = this.#buffered;
      buffer[used++] = 0x80;
      if (used > 56) {
        buffer.fill(0, used, 64);
        compressBlocks(this.#state, SCHEDULE, buffer, 0, 64);
        used = 0;
      }
      buffer.fill(0, used, 56);
      const bits = this.#length * 8;
      const high = Math.floor(bits / 0x1_0000_0000);
      const low = bits >>> 0;
      buffer[56] = high >>> 24;
      buffer[57] = high >>> 16;
      buffer[58] = high >>> 8;
      buffer[59] = high;
      buffer[60] = low >>> 24;
      buffer[61] = low >>> 16;
      buffer[62] = low >>> 8;
      buffer[63] = low;
      compressBlocks(this.#state, SCHEDULE, buffer, 0, 64);
    }
    for (let i = 0; i < 8; i++) {
      const word = this.#state[i]!;
      out[i * 4] = word >>> 24;
      out[i * 4 + 1] = word >>> 16;
      out[i * 4 + 2] = word >>> 8;
      out[i * 4 + 3] = word;
    }
    return out;
  }
}
