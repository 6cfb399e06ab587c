/**
 * Argument checks of what is JavaScript-specific (types, shapes, NaN, bigints, numbers a
 * JS number or a wasm u32 cannot carry): each bad argument becomes a TypeError or a
 * RangeError saying what was wrong and what is allowed. Domain ranges (voters, latency,
 * flush, advance, chaos length) are the core's (crate/sim/src/limits.rs), which refuses an
 * argument before anything changes.
 * @module
 */

import { MAX_ECHO_CHARS } from './generated/wire.js';

/** Largest u32 (counts the core takes as u32: voters, observers, limits). */
export const U32 = 0xffff_ffff;

/** `text` cut to {@link MAX_ECHO_CHARS} characters, with an ellipsis when cut. */
export function cap(text: string): string {
  if (text.length <= MAX_ECHO_CHARS) return text;
  let end = MAX_ECHO_CHARS;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1; // do not split a surrogate pair
  return `${text.slice(0, end)}…`;
}

/** A short, safe rendering of a value for error messages. */
export function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(cap(v));
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) return String(v);
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'function') return 'a function';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (isPlainObject(v)) return 'an object';
  // Dates, Maps, class instances: name what it is.
  let name: unknown;
  try {
    name = (Object.getPrototypeOf(v) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  } catch {
    name = undefined;
  }
  if (typeof name === 'string' && /^[A-Za-z_$][\w$]*$/.test(name)) {
    return `${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${cap(name)}`;
  }
  return 'an object that is not a plain object';
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

export function object(v: unknown, what: string): Record<string, unknown> {
  if (!isPlainObject(v)) throw new TypeError(`${what} must be a plain object ({ ... }), got ${show(v)}`);
  return v;
}

/** Rejects keys outside `allowed`, naming the first unknown one and the allowed list. */
export function keys(obj: Record<string, unknown>, allowed: readonly string[], what: string): void {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) {
      throw new TypeError(`unknown ${what} '${cap(k)}'; allowed: ${allowed.join(', ')}`);
    }
  }
}

/** A whole number in [min, max] (max at most `Number.MAX_SAFE_INTEGER`). */
export function whole(v: unknown, what: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number') throw new TypeError(`${what} must be a number, got ${show(v)}`);
  if (!Number.isFinite(v)) throw new RangeError(`${what} must be a finite number, got ${v}`);
  if (!Number.isInteger(v)) throw new RangeError(`${what} must be a whole number, got ${v}`);
  if (v < min || v > max) {
    const range =
      max === Number.MAX_SAFE_INTEGER ? (v < min ? `at least ${min}` : `at most ${max} (Number.MAX_SAFE_INTEGER, the largest whole number a JS number holds exactly)`) : `between ${min} and ${max}`;
    throw new RangeError(`${what} must be ${range}, got ${v}`);
  }
  return v;
}

/** A duration in whole milliseconds, >= 0 (at most `max`; the core checks its own limits). */
export function duration(v: unknown, what: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v === 'number' && v < 0) throw new RangeError(`${what} must not be negative (whole milliseconds), got ${v}`);
  return whole(v, what, 0, max);
}

/** A probability in [0, 1]. */
export function probability(v: unknown, what: string): number {
  if (typeof v !== 'number') throw new TypeError(`${what} must be a number between 0 and 1, got ${show(v)}`);
  if (!Number.isFinite(v) || v < 0 || v > 1) {
    throw new RangeError(`${what} must be a number between 0 and 1, got ${v}`);
  }
  return v;
}

export function boolean(v: unknown, what: string): boolean {
  if (typeof v !== 'boolean') throw new TypeError(`${what} must be true or false, got ${show(v)}`);
  return v;
}

export function string(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new TypeError(`${what} must be a string, got ${show(v)}`);
  return v;
}

/** One of a fixed set of names. */
export function oneOf<T extends string>(v: unknown, allowed: readonly T[], what: string): T {
  if (typeof v !== 'string' || !allowed.includes(v as T)) {
    throw new (typeof v === 'string' ? RangeError : TypeError)(`${what} must be one of ${allowed.join(', ')}; got ${show(v)}`);
  }
  return v as T;
}

export function array(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new TypeError(`${what} must be an array, got ${show(v)}`);
  return v;
}
