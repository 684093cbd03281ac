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
// `(?<![\w.])\+?\d...` written to start with a character rather than a look-behind, so the engine can skip ahead.
const DIGIT_RUN = /(?:\+(?<![\w.]\+)\d|\d(?<![\w.]\d))[\d ().-]{5,40}\d(?![\w])/g;
// A token no bare host can start in (see BARE_HOST's look-behind): a scheme, then only characters that look-behind refuses.
const PLAIN_LINK = /^https?:\/\/[\w@.\/-]*$/i;
const QUOTED = /"([^"\n]{1,200})"|'([^'\n]{1,200})'/g;
// An amount followed by its unit is tried only from the first place in a run of digits and commas it can start: the
// unit follows the whole run or none of it, and trying every `,1` of `1,1,1,...` again made a CSV row quadratic.
// (Digits right after a `.` do not count as that first place: a previous amount may have ended among them.)
const QUANTITY = /(?:([$€£¥])\s?(\d[\d,]*(?:\.\d+)?))|(?:\b(?<!(?<![\w.])\d[\d,]*?)(\d[\d,]*(?:\.\d+)?)\s?(%|usd|eur|chf|gbp|jpy|dollars?|euros?|francs?|pounds?|kg|g|km|m|cm|mi|miles?|hours?|hrs?|minutes?|mins?|days?|weeks?|months?|years?|nights?|people|persons?|guests?)\b)/gi;

/**
 * Where the next anchor at or after `from` is: a dot between a letter, digit or `-` and a letter, or an `@`, where
 * an address, a link or a host can be. Found with `indexOf` (the same places as `/[A-Za-z0-9-]\.[A-Za-z]|@/g`).
 * Returns the anchor's start and end, or -1.
 */
function nextAnchor(text: string, from: number): [start: number, end: number] | -1 {
  const at = text.indexOf('@', from);
  let dot = text.indexOf('.', from + 1);
  while (dot !== -1 && (at === -1 || dot - 1 < at)) {
    if (isHostChar(text.charCodeAt(dot - 1)) && isLetter(text.charCodeAt(dot + 1))) return [dot - 1, dot + 2];
    dot = text.indexOf('.', dot + 1);
  }
  return at === -1 ? -1 : [at, at + 1];
}
const isLetter = (code: number) => (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;
const isHostChar = (code: number) => isLetter(code) || (code >= 0x30 && code <= 0x39) || code === 0x2d;

// What ends a token around an anchor: white space and the brackets, quotes and separators around addresses.
// A table, not a Set: it is read for every character around every anchor.
const TOKEN_END = new Uint8Array(128);
for (const char of ' \t\n\r\f\v<>"\'`()[]{}|\\,;') TOKEN_END[char.charCodeAt(0)] = 1;
const isTokenEnd = (code: number) => (code < 128 ? TOKEN_END[code] === 1 : code === 0xa0 || code === 0x2028 || code === 0x2029);
const MAX_TOKEN = 2_300;

/** Calls `visit` with each whitespace-delimited token (bounded) that holds an anchor (see {@link nextAnchor}), each token once. */
function forEachToken(text: string, visit: (token: string) => boolean): void {
  for (let anchor = nextAnchor(text, 0); anchor !== -1; ) {
    const [index, anchorEnd] = anchor;
    let start = index;
    while (start > 0 && index - start < MAX_TOKEN && !isTokenEnd(text.charCodeAt(start - 1))) start--;
    let end = anchorEnd;
    while (end < text.length && end - index < MAX_TOKEN && !isTokenEnd(text.charCodeAt(end))) end++;
    if (!visit(text.slice(start, end))) return;
    anchor = nextAnchor(text, Math.max(end, anchorEnd));
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
export function extractAtoms(input: string, options: AtomOptions = {}): AtomExtraction {
  const found = new Map<string, Atom>();
  const maxAtoms = options.maxAtoms ?? DEFAULT_MAX_ATOMS;
  const truncated = scanAtoms(input, options, (kind, value, derived) => {
    if (found.has(value)) return true;
    if (found.size >= maxAtoms) return false;
    found.set(value, derived ? { kind, value, derived: true } : { kind, value });
    return true;
  });
  return { atoms: [...found.values()], truncated };
}

/**
 * Where {@link scanAtoms} hands each atom, in the order found (the same value may come again): `true` when it is
 * kept or was kept before, `false` when the cap refuses it, which ends the scan.
 */
export type AtomSink = (kind: AtomKind, value: string, derived: boolean) => boolean;

/**
 * The scan behind {@link extractAtoms}, handing each atom to `keep` instead of collecting them, so a caller that
 * indexes atoms (the provenance log) does not build them twice. `maxAtoms` is the sink's to enforce. With
 * `descriptive: false` it skips quoted strings and amounts (a caller that never looks them up need not pay for them).
 * Returns whether the text was cut: longer than `maxChars`, or an atom refused.
 */
export function scanAtoms(input: string, { idPatterns = [], maxChars = DEFAULT_MAX_ATOM_CHARS }: AtomOptions, keep: AtomSink, { descriptive = true }: { descriptive?: boolean } = {}): boolean {
  const text = input.length > maxChars ? input.slice(0, maxChars) : input;
  // Set once an atom was refused for the cap: from then on no pass can change the result, so none runs.
  let capped = false;
  // The host of the previous link or address: dense text names the same host again and again, and comparing two
  // strings is cheaper than hashing a new one (an atom kept once stays kept).
  let lastHost = '';
  const add = (kind: AtomKind, value: string, derived = false): boolean => {
    if (value === '') return true;
    if (derived) {
      if (value === lastHost) return true;
      lastHost = value;
    }
    if (keep(kind, value, derived)) return true;
    lastHost = '';
    capped = true;
    return false;
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
  // A token met again gives only atoms already kept (a signature's address on every message): it is not read again.
  const tokens = new Set<string>();
  forEachToken(text, (token) => {
    const seen = tokens.size;
    if (tokens.add(token).size === seen) return true;
    if (token.includes('@')) {
      scanIn(token, EMAIL, (match) => {
        const email = match[0].toLowerCase().replace(/^[._%+-]+/, '');
        return (full = !(add('email', email) && add('host', email.slice(email.indexOf('@') + 1), true))) === false;
      });
    }
    if (!full) scanIn(token, URL_PATTERN, (match) => (full = !addUrl(match[0], add)) === false);
    // A host right after `@` or inside a URL is the e-mail's or the URL's, already taken: the pattern's look-behind skips
    // it. In a token that is one link with a scheme and only word characters, `@ . / -` after it, every place a bare
    // host could start follows one of those: the pattern would find nothing, so it does not run.
    if (!full && !PLAIN_LINK.test(token)) scanIn(token, BARE_HOST, (match) => (full = !addUrl(match[0], add)) === false);
    return !full;
  });
  const truncated = () => capped || input.length > maxChars;
  if (capped) return truncated();
  const hasDigits = /\d/.test(text);
  if (hasDigits) scan(IBAN, (match) => add('iban', match[0].replace(/ /g, '').toUpperCase()));
  if (capped) return truncated();
  if (hasDigits) scan(DIGIT_RUN, (match) => {
    const raw = match[0];
    const digits = raw.replace(/\D/g, '');
    if (digits.length < 7 || digits.length > 34) return true;
    // A date (2024-05-15) or a time is not an account or a phone number.
    if (/^\d{4}-\d{2}-\d{2}/.test(raw) || /^\d{1,2}[.:]\d{2}/.test(raw)) return true;
    const kind: AtomKind = /[+()]/.test(raw) || /[ .-]/.test(raw.trim()) ? 'phone' : 'account';
    return add(kind, (raw.startsWith('+') ? '+' : '') + digits);
  });
  if (capped) return truncated();
  for (const pattern of idPatterns) {
    try {
      if (!pattern.global) continue;
      scan(pattern, (match) => add('id', match[0].toLowerCase()));
      if (capped) return truncated();
    } catch {
      // A pattern the application passed that cannot run here is its own mistake; the other atoms still count.
    }
  }
  if (capped || !descriptive) return truncated();
  if (text.includes('"') || text.includes("'")) scan(QUOTED, (match) => {
    const quoted = normaliseText(match[1] ?? match[2] ?? '');
    return quoted.length < 2 || add('quoted', quoted);
  });
  if (capped) return truncated();
  if (hasDigits) scan(QUANTITY, (match) => {
    const symbol = match[1];
    const number = (symbol ? match[2] : match[3])!.replace(/,/g, '');
    const unit = symbol ? CURRENCY_SYMBOLS[symbol]! : unitOf(match[4]!.toLowerCase());
    return add('quantity', `${Number(number)} ${unit}`);
  });
  return truncated();
}

/**
 * The key a URL is matched by: no scheme, the host lower-cased, no trailing slash or sentence punctuation, so
 * `https://www.Example.com/a/` and `www.example.com/a` are one value.
 */
export function normaliseUrl(raw: string): string {
  // Plain loops, not regular expressions: a dense megabyte holds thousands of links.
  let end = raw.length;
  while (end > 0 && isUrlTrailing(raw.charCodeAt(end - 1))) end--;
  const start = schemeLength(raw, end);
  const slash = raw.indexOf('/', start);
  const hostEnd = slash === -1 || slash >= end ? end : slash;
  let restEnd = end;
  while (restEnd > hostEnd && raw.charCodeAt(restEnd - 1) === 0x2f) restEnd--;
  return raw.slice(start, hostEnd).toLowerCase() + raw.slice(hostEnd, restEnd);
}

// Sentence punctuation after a link, not part of it: . , ; : ! ? ' "
const isUrlTrailing = (code: number) => code === 0x2e || code === 0x2c || code === 0x3b || code === 0x3a || code === 0x21 || code === 0x3f || code === 0x27 || code === 0x22;

/** Length of a leading `http://` or `https://` (any case) within `raw[0, end)`, or 0. */
function schemeLength(raw: string, end: number): number {
  if (end < 7 || (raw.charCodeAt(0) | 0x20) !== 0x68 || (raw.charCodeAt(1) | 0x20) !== 0x74 || (raw.charCodeAt(2) | 0x20) !== 0x74 || (raw.charCodeAt(3) | 0x20) !== 0x70) return 0;
  let at = 4;
  if ((raw.charCodeAt(at) | 0x20) === 0x73) at++;
  return at + 3 <= end && raw.startsWith('://', at) ? at + 3 : 0;
}

// A run of white space other than one plain space: a space followed by more, or any other white space and the rest.
const COLLAPSIBLE_SPACE = / \s+|[^\S ]\s*/g;

/** Lower case, one space between words, no surrounding space: how quoted strings and free text are compared. */
export function normaliseText(text: string): string {
  // Only runs that are not already one space are replaced: prose has a space between every two words, and rewriting
  // each of them cost more than extracting the atoms of the same megabyte.
  return text.replace(COLLAPSIBLE_SPACE, ' ').trim().toLowerCase();
}

function addUrl(raw: string, add: (kind: AtomKind, value: string, derived?: boolean) => boolean): boolean {
  const url = normaliseUrl(raw);
  if (!url.includes('.')) return true;
  const slash = url.indexOf('/');
  const host = withoutPort(slash === -1 ? url : url.slice(0, slash));
  if (!add('url', url)) return false;
  if (host !== url && !add('host', host, true)) return false;
  return !host.startsWith('www.') || add('host', host.slice(4), true);
}

/** A host without its `:port` (digits to the end). */
function withoutPort(host: string): string {
  let at = host.length;
  while (at > 0 && host.charCodeAt(at - 1) >= 0x30 && host.charCodeAt(at - 1) <= 0x39) at--;
  return at < host.length && at > 0 && host.charCodeAt(at - 1) === 0x3a ? host.slice(0, at - 1) : host;
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
