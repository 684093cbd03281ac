/**
 * Values that differ between two otherwise identical tool results or messages without meaning anything for a loop:
 * UUIDs, ISO-8601 timestamps, 13-digit epoch milliseconds and long hexadecimal ids (request ids, hashes). A poll that
 * returns `{"status":"pending","checkedAt":"2026-01-01T10:00:03Z"}` each time is the same result every time.
 *
 * Plain numbers and short ids are not in the list on purpose: `get_booking(id: 4711)` and `get_booking(id: 4712)` are
 * different calls, and telling them apart is what keeps a legitimate sweep from looking like a loop.
 */
export const DEFAULT_VOLATILE_PATTERNS: readonly RegExp[] = Object.freeze([
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g,
  /\b1[5-9]\d{11}\b/g,
  /\b[0-9a-f]{24,}\b/gi,
]);

/** What a volatile value is replaced with before comparing. */
export const VOLATILE_PLACEHOLDER = '<volatile>';

/**
 * Whitespace that `collapseWhitespace` replaces: runs of two or more, and single characters other than a space. The
 * same result as replacing every `\s+` with a space, without rewriting each of the thousands of single spaces in a
 * long text (half the cost of the text checks on a 64 KB response).
 * @internal
 */
export const COLLAPSIBLE_WHITESPACE = /\s{2,}|[^\S ]/g;

/** Every run of whitespace as one space. @internal */
export function collapseWhitespace(text: string): string {
  return text.replace(COLLAPSIBLE_WHITESPACE, ' ');
}

/** Longest prefix of a text or result that is compared: bounds the work on a 10 MB message. */
export const COMPARED_CHARACTERS = 65_536;

/**
 * Builds the function that replaces volatile values with {@link VOLATILE_PLACEHOLDER}. Patterns are copied with the
 * `g` flag, so a pattern written without it still replaces every occurrence, and a caller's `lastIndex` is never
 * touched. Where two patterns match at one place, the one listed first wins.
 * @internal
 */
export function createVolatileNormalizer(patterns: readonly RegExp[]): (text: string) => string {
  // Patterns with the same flags run as one alternation: one pass over a text instead of one per pattern. A pattern
  // with groups that are referred to or named keeps a pass of its own, since joining would renumber or clash.
  const byFlags = new Map<string, string[]>();
  const alone: RegExp[] = [];
  for (const pattern of patterns) {
    const flags = pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`;
    if (/\\[1-9]|\\k<|\(\?<[^=!]/.test(pattern.source)) alone.push(new RegExp(pattern.source, flags));
    else byFlags.set(flags, [...(byFlags.get(flags) ?? []), `(?:${pattern.source})`]);
  }
  const global = [...[...byFlags].map(([flags, sources]) => new RegExp(sources.join('|'), flags)), ...alone];
  return (text) => {
    let result = text;
    for (const pattern of global) result = result.replace(pattern, VOLATILE_PLACEHOLDER);
    return result;
  };
}

/**
 * The form of an assistant text that is compared: whitespace runs collapsed, trimmed, volatile values replaced, and
 * cut at {@link COMPARED_CHARACTERS} with the full length kept, so two long texts that differ only past the cut still
 * differ when their lengths do.
 * @internal
 */
export function comparableText(text: string, normalizeVolatile: (text: string) => string): string {
  const head = text.length > COMPARED_CHARACTERS ? `${text.slice(0, COMPARED_CHARACTERS)}…[${text.length}]` : text;
  return normalizeVolatile(collapseWhitespace(head).trim());
}
