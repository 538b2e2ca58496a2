import { MAX_SAFE_INTEGER } from './vocabulary.ts';

/**
 * The §4.4/§10.2 number domain. RFC 8785 prints a number with ECMA-262
 * Number::toString; the domain refuses exactly the numbers whose canonical
 * form would be an integer digit string a reader cannot hold losslessly.
 *
 * - An in-process number (an object handed to the engine, a transform's
 *   value) has no lexical form, so its value decides: it is out of the domain
 *   iff it is non-finite or 2^53 ≤ |x| < 1e21. Every double that large is
 *   integral, and Number::toString prints it as a digit string past 2^53;
 *   from 1e21 on it prints in exponent form (`1e+21`) and is in the domain.
 * - JSON text is judged on the token (json-text.ts): an integer token (no
 *   fraction, no exponent) beyond ±(2^53−1) is out; a fraction or exponent
 *   token is in whatever its magnitude, if finite. So `1e16` in text is in
 *   the domain although the value 1e16 handed in-process is not.
 *
 * The two rules disagree only on fraction/exponent tokens whose value lands
 * in [2^53, 1e21). The JSON-text funnel vouches for each such number where it
 * put it (container + member), and the in-process checks accept a number
 * there only while it is still the vouched value: a parsed context keeps its
 * lexical verdict through the engine, the CLI and HTTP, and anything written
 * into it later is judged by value.
 */
export function isDomainNumber(x: number): boolean {
  // NaN fails both comparisons; ±Infinity fails the first and passes the second.
  return (
    (x <= MAX_SAFE_INTEGER && x >= -MAX_SAFE_INTEGER) || (Number.isFinite(x) && Math.abs(x) >= 1e21)
  );
}

/** Numbers the JSON-text funnel accepted on their token though their value alone is out. */
const VOUCHED = new WeakMap<object, Map<string, number>>();

/** json-text.ts: the number at `container[key]` came from a fraction/exponent token. */
export function vouchNumber(container: object, key: string, value: number): void {
  let members = VOUCHED.get(container);
  if (members === undefined) {
    members = new Map();
    VOUCHED.set(container, members);
  }
  members.set(key, value);
}

/** Whether `value` at `container[key]` is in the domain: by value, or by the token it was parsed from. */
export function isDomainMember(container: object, key: string | number, value: number): boolean {
  if (isDomainNumber(value)) return true;
  return VOUCHED.get(container)?.get(String(key)) === value;
}

/** A projection copies a member into a new container: the token's verdict travels with it (§10.2). */
export function carryVouch(from: object, fromKey: string, to: object, toKey: string): void {
  const value = VOUCHED.get(from)?.get(fromKey);
  if (value !== undefined) vouchNumber(to, toKey, value);
}

/**
 * A shallow copy (`{ ...obj, [k]: v }`, as redaction and transforms make)
 * keeps the token verdicts of the members it copies; a member overwritten
 * with another value is judged by value again (isDomainMember compares).
 */
export function carryVouches(from: object, to: object): void {
  const members = VOUCHED.get(from);
  if (members !== undefined) VOUCHED.set(to, new Map(members));
}

/** The remediation for a number outside the domain (§10.2 names this text). */
export const INTEGER_BEYOND_2_53 =
  'integer exceeds 2^53; string-encode 64-bit identifiers, see §4.4';
