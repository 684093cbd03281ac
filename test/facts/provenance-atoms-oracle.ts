// The extractor as it was before it was made faster: the oracle of test/facts/provenance-atoms-differential.test.ts.
// Do not edit: the optimised extractor must return exactly what this returns.
/**
 * Atoms: the values in a text that can name a destination or an object of an action (an e-mail address, a URL or a
 * host, an IBAN or an account number, a phone number, an id of a configured shape, a quoted string, an amount with
 * its unit), each normalised so that the same value written two ways is one key.
 */

/** What kind of value an atom is. */
export type AtomKind = 'email' | 'url' | 'host' | 'iban' | 'account' | 'phone' | 'id' | 'quoted' | 'quantity';

/** One value found in a text, normalised. */
export interface Atom {
  kind: AtomKind;
  /** The normalised value: the key two spellings of the same value share. */
  value: string;
  /** A host taken from a URL or an e-mail address: a consequence of another atom, not a value written on its own. */
  derived?: true;
}

/** Options of {@link extractAtoms}. */
export interface AtomOptions {
  /** Ids of the application's own shapes (`/\bBK-\d{6}\b/g`), each match an `id` atom, kept as written but case-folded. */
  idPatterns?: readonly RegExp[];
  /** Characters read from one text; the rest is not looked at. @default 1048576 */
  maxChars?: number;
  /** Atoms kept from one text; later ones are not kept. @default 5000 */
  maxAtoms?: number;
}

/** Default of `AtomOptions.maxChars`. */
export const DEFAULT_MAX_ATOM_CHARS = 1_048_576;
/** Default of `AtomOptions.maxAtoms`. */
export const DEFAULT_MAX_ATOMS = 5_000;

/** What {@link extractAtoms} found, and whether it stopped early. */
export interface AtomExtraction {
  atoms: Atom[];
  /** The text was longer than `maxChars`, or gave more than `maxAtoms` atoms. */
  truncated: boolean;
}

// Top-level domains a bare host (no scheme, no `www.`) must end with: a file name such as `notes.txt` is not a host.
const HOST_TLDS = 'com|org|net|io|ai|dev|app|co|uk|de|ch|fr|it|es|nl|eu|us|edu|gov|info|biz|me|xyz|site|online|tech|cloud|ly|gl|tv|to';

const EMAIL = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}/g;
const URL_PATTERN = /\b(?:https?:\/\/|www\.)[^\s<>"'`)\]}|\\]{1,2048}/gi;
const BARE_HOST = new RegExp(String.raw`(?<![@\w.\/-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){1,8}(?:${HOST_TLDS})(?![\w-])(?:\/[^\s<>"'\x60)\]}|\\]{0,2048})?`, 'gi');
// Any case: people type IBANs in lower case too.
const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/gi;
const DIGIT_RUN = /(?<![\w.])\+?\d[\d ().-]{5,40}\d(?![\w])/g;
const QUOTED = /"([^"\n]{1,200})"|'([^'\n]{1,200})'/g;
const QUANTITY = /(?:([$€£¥])\s?(\d[\d,]*(?:\.\d+)?))|(?:\b(\d[\d,]*(?:\.\d+)?)\s?(%|usd|eur|chf|gbp|jpy|dollars?|euros?|francs?|pounds?|kg|g|km|m|cm|mi|miles?|hours?|hrs?|minutes?|mins?|days?|weeks?|months?|years?|nights?|people|persons?|guests?)\b)/gi;

// A dot between two word characters, or an `@`: where an address, a link or a host can be.
const DOT_OR_AT = /[A-Za-z0-9-]\.[A-Za-z]|@/g;
// What ends a token around an anchor: white space and the brackets, quotes and separators around addresses.
const TOKEN_END = new Set([...' \t\n\r\f\v<>"\'`()[]{}|\\,;'].map((char) => char.charCodeAt(0)));
const isTokenEnd = (code: number) => TOKEN_END.has(code) || code === 0xa0 || code === 0x2028 || code === 0x2029;
const MAX_TOKEN = 2_300;

/** Calls `visit` with each whitespace-delimited token (bounded) that holds a match of `anchor`, each token once. */
function forEachToken(text: string, anchor: RegExp, visit: (token: string) => boolean): void {
  anchor.lastIndex = 0;
  for (let match = anchor.exec(text); match !== null; match = anchor.exec(text)) {
    let start = match.index;
    while (start > 0 && match.index - start < MAX_TOKEN && !isTokenEnd(text.charCodeAt(start - 1))) start--;
    let end = match.index + match[0].length;
    while (end < text.length && end - match.index < MAX_TOKEN && !isTokenEnd(text.charCodeAt(end))) end++;
    if (!visit(text.slice(start, end))) return;
    anchor.lastIndex = Math.max(end, anchor.lastIndex);
  }
}

/** Runs a global pattern over a short text (a token). */
function scanIn(text: string, pattern: RegExp, onMatch: (match: RegExpExecArray) => boolean): void {
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (!onMatch(match)) return;
    if (match[0] === '') pattern.lastIndex++;
  }
}

const CURRENCY_SYMBOLS: Record<string, string> = { $: 'usd', '€': 'eur', '£': 'gbp', '¥': 'jpy' };

/**
 * Finds the atoms in a text. Bounded: reads at most `maxChars` characters and keeps at most `maxAtoms` atoms, each
 * pattern runs in linear time, and nothing it meets makes it throw (a bad id pattern is skipped).
 * @example
 * extractAtoms('Pay US13 3000 0000 1212 1212 1212 or mail Bob@Example.com').atoms
 * // [{ kind: 'email', value: 'bob@example.com' }, { kind: 'host', value: 'example.com', derived: true }, { kind: 'iban', value: 'US133000000121212121212' }]
 */
export function extractAtoms(input: string, { idPatterns = [], maxChars = DEFAULT_MAX_ATOM_CHARS, maxAtoms = DEFAULT_MAX_ATOMS }: AtomOptions = {}): AtomExtraction {
  const text = input.length > maxChars ? input.slice(0, maxChars) : input;
  let truncated = input.length > maxChars;
  const found = new Map<string, Atom>();
  const add = (kind: AtomKind, value: string, derived = false): boolean => {
    if (value === '' || found.has(value)) return true;
    if (found.size >= maxAtoms) {
      truncated = true;
      return false;
    }
    found.set(value, derived ? { kind, value, derived: true } : { kind, value });
    return true;
  };
  const scan = (pattern: RegExp, onMatch: (match: RegExpExecArray) => boolean) => {
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      if (!onMatch(match)) return;
      if (match[0] === '') pattern.lastIndex++;
    }
  };

  // E-mails, URLs and hosts are looked for only in the tokens around an `@` or a dot between letters: prose has
  // few, and running their patterns over every word of a megabyte cost ten times more.
  let full = false;
  forEachToken(text, DOT_OR_AT, (token) => {
    if (token.includes('@')) {
      scanIn(token, EMAIL, (match) => {
        const email = match[0].toLowerCase().replace(/^[._%+-]+/, '');
        return (full = !(add('email', email) && add('host', email.slice(email.indexOf('@') + 1), true))) === false;
      });
    }
    if (!full) scanIn(token, URL_PATTERN, (match) => (full = !addUrl(match[0], add)) === false);
    // A host right after `@` or inside a URL is the e-mail's or the URL's, already taken: the pattern's look-behind skips it.
    if (!full) scanIn(token, BARE_HOST, (match) => (full = !addUrl(match[0], add)) === false);
    return !full;
  });
  const hasDigits = /\d/.test(text);
  if (hasDigits) scan(IBAN, (match) => add('iban', match[0].replace(/ /g, '').toUpperCase()));
  if (hasDigits) scan(DIGIT_RUN, (match) => {
    const raw = match[0];
    const digits = raw.replace(/\D/g, '');
    if (digits.length < 7 || digits.length > 34) return true;
    // A date (2024-05-15) or a time is not an account or a phone number.
    if (/^\d{4}-\d{2}-\d{2}/.test(raw) || /^\d{1,2}[.:]\d{2}/.test(raw)) return true;
    const kind: AtomKind = /[+()]/.test(raw) || /[ .-]/.test(raw.trim()) ? 'phone' : 'account';
    return add(kind, (raw.startsWith('+') ? '+' : '') + digits);
  });
  for (const pattern of idPatterns) {
    try {
      if (!pattern.global) continue;
      scan(pattern, (match) => add('id', match[0].toLowerCase()));
    } catch {
      // A pattern the application passed that cannot run here is its own mistake; the other atoms still count.
    }
  }
  if (text.includes('"') || text.includes("'")) scan(QUOTED, (match) => {
    const quoted = normaliseText(match[1] ?? match[2] ?? '');
    return quoted.length < 2 || add('quoted', quoted);
  });
  if (hasDigits) scan(QUANTITY, (match) => {
    const symbol = match[1];
    const number = (symbol ? match[2] : match[3])!.replace(/,/g, '');
    const unit = symbol ? CURRENCY_SYMBOLS[symbol]! : unitOf(match[4]!.toLowerCase());
    return add('quantity', `${Number(number)} ${unit}`);
  });
  return { atoms: [...found.values()], truncated };
}

/**
 * The key a URL is matched by: no scheme, the host lower-cased, no trailing slash or sentence punctuation, so
 * `https://www.Example.com/a/` and `www.example.com/a` are one value.
 */
export function normaliseUrl(raw: string): string {
  let url = raw.replace(/[.,;:!?'"]+$/, '').replace(/^https?:\/\//i, '');
  const slash = url.indexOf('/');
  const host = (slash === -1 ? url : url.slice(0, slash)).toLowerCase();
  const rest = slash === -1 ? '' : url.slice(slash);
  url = (host + rest).replace(/\/+$/, '');
  return url;
}

/** Lower case, one space between words, no surrounding space: how quoted strings and free text are compared. */
export function normaliseText(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

function addUrl(raw: string, add: (kind: AtomKind, value: string, derived?: boolean) => boolean): boolean {
  const url = normaliseUrl(raw);
  if (!url.includes('.')) return true;
  const host = url.split('/')[0]!.replace(/:\d+$/, '');
  if (!add('url', url)) return false;
  if (host !== url && !add('host', host, true)) return false;
  return !host.startsWith('www.') || add('host', host.slice(4), true);
}

function unitOf(unit: string): string {
  if (unit.startsWith('dollar')) return 'usd';
  if (unit.startsWith('euro')) return 'eur';
  if (unit.startsWith('franc')) return 'chf';
  if (unit.startsWith('pound')) return 'gbp';
  if (unit.startsWith('hour') || unit.startsWith('hr')) return 'h';
  if (unit.startsWith('min')) return 'min';
  if (unit.startsWith('mile') || unit === 'mi') return 'mi';
  if (unit.endsWith('s') && unit.length > 3 && unit !== 'people') return unit.slice(0, -1);
  return unit;
}
