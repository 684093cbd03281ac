/**
 * The shape of one configuration key of `panoptes serve`, shared by the core keys and the sections kept in files of
 * their own (the semantic tier's `embeddings:` and `loops:`).
 * @module
 */

/** Where a value came from, for its diagnostic. */
export interface Origin {
  source: string;
  path: string;
  line?: number;
  column?: number;
  /** For a YAML list: where each item is, so a diagnostic can point at the one at fault. */
  items?: Array<{ line: number; column: number }>;
  /** Relative file paths resolve against this folder. */
  base: string;
}

/** A checked value, or why it is not one (the diagnostic adds the value received and what is expected). */
export type CheckResult = { value: unknown } | { problem: string };

/**
 * A key checked by a function of its own rather than one of the core kinds: `expected` is the diagnostic's hint.
 * Strings from the environment must be accepted and converted.
 */
export interface CustomCheck {
  check(value: unknown, origin: Origin): CheckResult | Promise<CheckResult>;
  expected: string;
}

/** A checked value with the place it came from, for cross-key diagnostics. */
export interface CheckedValue {
  value: unknown;
  origin: Origin;
}

/**
 * An http(s) URL, or what is wrong with it. `withoutCredentials` names where the key goes instead, for a URL that
 * must not carry a user name or password.
 */
export function httpUrl(value: unknown, withoutCredentials?: string): { url: URL } | { problem: string } {
  if (typeof value !== 'string') return { problem: 'not a URL' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: 'not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: `unsupported protocol '${url.protocol}'` };
  if (withoutCredentials !== undefined && (url.username !== '' || url.password !== '')) return { problem: `credentials in the URL (${withoutCredentials})` };
  return { url };
}
