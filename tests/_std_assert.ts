// Copyright 2026 the taskpack authors. MIT license.
/**
 * The assertions the library's documentation examples use, under the names and signatures of
 * `@std/assert` (`assert`, `assertEquals`, `assertMatch`, `assertThrows`, `assertRejects`), so
 * that an example reads as it would anywhere in the Deno world and runs as written with the
 * real package. JSR cannot be reached from the machines this project is built on, so
 * `deno.json` maps `@std/assert` here for `deno test --doc`; where JSR is reachable the
 * mapping can point at `jsr:@std/assert@1` instead, and nothing else changes. Our own code,
 * written for this project; only the names follow the standard library's.
 *
 * @module
 */

/** Raised when an assertion fails. */
export class AssertionError extends Error {
  /** @param message What failed. */
  constructor(message: string) {
    super(message);
    this.name = "AssertionError";
  }
}

/**
 * Asserts that `expr` is truthy.
 *
 * @param expr The value.
 * @param msg The message when it is not.
 */
export function assert(expr: unknown, msg = "Expected a truthy value"): asserts expr {
  if (!expr) throw new AssertionError(msg);
}

/**
 * Asserts that `actual` and `expected` are deeply equal: the same primitive (`Object.is`), or
 * objects of the same prototype whose contents are deeply equal (arrays and typed arrays
 * element by element, maps and sets by their entries, dates by their time, other objects by
 * their own enumerable keys).
 *
 * @param actual The value found.
 * @param expected The value expected.
 * @param msg The message when they differ.
 */
export function assertEquals<T>(actual: T, expected: T, msg?: string): void {
  if (!equal(actual, expected)) {
    throw new AssertionError(
      msg ?? `Values are not equal:\n  actual:   ${show(actual)}\n  expected: ${show(expected)}`,
    );
  }
}

/**
 * Asserts that `actual` matches `expected`.
 *
 * @param actual The text.
 * @param expected The pattern.
 * @param msg The message when it does not match.
 */
export function assertMatch(actual: string, expected: RegExp, msg?: string): void {
  if (!expected.test(actual)) {
    throw new AssertionError(msg ?? `Expected ${show(actual)} to match ${expected}`);
  }
}

/**
 * Asserts that `fn` throws an instance of `ErrorClass` whose message includes `msgIncludes`.
 *
 * @param fn The function.
 * @param ErrorClass The class the error must be an instance of.
 * @param msgIncludes Text its message must include.
 * @param msg The message when it does not throw so.
 * @returns The error thrown.
 */
export function assertThrows<E extends Error = Error>(
  fn: () => unknown,
  // deno-lint-ignore no-explicit-any
  ErrorClass: abstract new (...args: any[]) => E,
  msgIncludes?: string,
  msg?: string,
): E {
  try {
    fn();
  } catch (error) {
    return checkError(error, ErrorClass, msgIncludes, msg);
  }
  throw new AssertionError(msg ?? "Expected the function to throw");
}

/**
 * Asserts that the promise `fn` returns rejects with an instance of `ErrorClass` whose message
 * includes `msgIncludes`.
 *
 * @param fn The function.
 * @param ErrorClass The class the error must be an instance of.
 * @param msgIncludes Text its message must include.
 * @param msg The message when it does not reject so.
 * @returns The error it rejected with.
 */
export async function assertRejects<E extends Error = Error>(
  fn: () => PromiseLike<unknown>,
  // deno-lint-ignore no-explicit-any
  ErrorClass: abstract new (...args: any[]) => E,
  msgIncludes?: string,
  msg?: string,
): Promise<E> {
  try {
    await fn();
  } catch (error) {
    return checkError(error, ErrorClass, msgIncludes, msg);
  }
  throw new AssertionError(msg ?? "Expected the promise to reject");
}

function checkError<E extends Error>(
  error: unknown,
  // deno-lint-ignore no-explicit-any
  ErrorClass: abstract new (...args: any[]) => E,
  msgIncludes: string | undefined,
  msg: string | undefined,
): E {
  if (!(error instanceof ErrorClass)) {
    throw new AssertionError(msg ?? `Expected a ${ErrorClass.name}, got ${show(error)}`);
  }
  if (msgIncludes !== undefined && !error.message.includes(msgIncludes)) {
    throw new AssertionError(
      msg ?? `Expected the message ${show(error.message)} to include ${show(msgIncludes)}`,
    );
  }
  return error;
}

function show(value: unknown): string {
  return Deno.inspect(value, { depth: 6 });
}

function equal(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (a instanceof Date) return a.getTime() === (b as Date).getTime();
  if (a instanceof RegExp) return String(a) === String(b);
  if (ArrayBuffer.isView(a)) {
    const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    const y = new Uint8Array(
      (b as ArrayBufferView).buffer,
      (b as ArrayBufferView).byteOffset,
      (b as ArrayBufferView).byteLength,
    );
    return x.length === y.length && x.every((byte, i) => byte === y[i]);
  }
  if (a instanceof Map) {
    const other = b as Map<unknown, unknown>;
    return a.size === other.size &&
      [...a].every(([key, value]) => other.has(key) && equal(value, other.get(key)));
  }
  if (a instanceof Set) {
    const other = b as Set<unknown>;
    return a.size === other.size && [...a].every((value) => other.has(value));
  }
  const keysA = Reflect.ownKeys(a).filter((key) =>
    Object.prototype.propertyIsEnumerable.call(a, key)
  );
  const keysB = Reflect.ownKeys(b).filter((key) =>
    Object.prototype.propertyIsEnumerable.call(b, key)
  );
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) =>
    Object.prototype.propertyIsEnumerable.call(b, key) &&
    equal((a as Record<PropertyKey, unknown>)[key], (b as Record<PropertyKey, unknown>)[key])
  );
}
