import { hashString } from './hash.js';
import { excerpt } from './hints.js';
import { collapseWhitespace } from './normalize.js';
import { proseSegments } from './prose.js';
import type { LoopFinding } from './types.js';

/**
 * Characters of a response scanned, from its end: a degenerate response loops until it runs out of tokens, so the
 * repetition is at the end, and the bound keeps a 10 MB response as cheap as a 16 KB one.
 */
const SCANNED_CHARACTERS = 16_384;

/**
 * Longest token whose run is never a loop: a divider (`=====`), a hex dump (`00 00 00`), a row of dots. Writing one
 * is formatting, not a model stuck.
 */
const SHORT_TOKEN = 10;

/** A passage repeated back to back within one text. @internal */
export interface RepeatedPassage {
  /** One copy of the passage, as scanned (whitespace collapsed, separator included). */
  passage: string;
  /** Back-to-back copies of the passage. */
  count: number;
}

/**
 * Finds the longest stretch of `text` that is one passage repeated back to back, when it is long enough to count:
 * at least `repetitions` copies of a passage of `chunkSize` characters or more, or `repetitions x chunkSize`
 * characters of a shorter passage ("ha ha ha ..."), each copy starting at most `spacing` characters after the
 * previous one. Whitespace runs count as one space, so copies separated by a space or a line break match.
 *
 * One pass over the scanned characters with a rolling hash of every `chunkSize`-long window: in a stretch repeated
 * with period p, each window's previous occurrence is exactly p characters back, so a run of windows with the same
 * distance is a periodic stretch. A candidate is verified character by character, so a hash collision never reports.
 * @internal
 */
export function findRepeatedPassage(text: string, chunkSize: number, repetitions: number, spacing = Infinity): RepeatedPassage | null {
  // `+ 1`: the scan adds a trailing space, so ten copies of a passage ending in a space still count after a trim
  // took the last one off.
  if (text.length + 1 < repetitions * chunkSize) return null;
  const tail = text.length > 2 * SCANNED_CHARACTERS ? text.slice(-2 * SCANNED_CHARACTERS) : text;
  const collapsed = collapseWhitespace(tail).trim();
  // The trailing space makes the last copy of a space-separated passage complete.
  const scanned = `${collapsed.length > SCANNED_CHARACTERS ? collapsed.slice(-SCANNED_CHARACTERS) : collapsed} `;
  const length = scanned.length;
  const window = chunkSize;
  if (length < repetitions * window) return null;

  const BASE = 257;
  let power = 1; // BASE^(window - 1), modulo 2^32
  for (let i = 1; i < window; i++) power = Math.imul(power, BASE);
  let hash = 0;
  for (let i = 0; i < window; i++) hash = (Math.imul(hash, BASE) + scanned.charCodeAt(i)) | 0;

  const lastSeen = new Map<number, number>();
  // Every window's hash, so a run continues while each window equals the one a period back, even when a nearer
  // copy exists: a passage that itself repeats a sentence has windows recurring at two distances.
  const hashes = new Int32Array(length);
  let best: { start: number; size: number; period: number } | undefined;
  let runPeriod = 0;
  let runStart = 0;
  let runEnd = -2;
  const closeRun = () => {
    if (runPeriod === 0) return;
    const start = runStart - runPeriod;
    const size = runEnd - runStart + window + runPeriod;
    if (size < repetitions * Math.max(runPeriod, window)) return;
    if (best !== undefined && size <= best.size) return;
    if (isShortToken(scanned, start, runPeriod)) return;
    if (isPeriodic(scanned, start, size, runPeriod)) best = { start, size, period: runPeriod };
  };

  for (let position = 0; position + window <= length; position++) {
    if (position > 0) {
      hash = (Math.imul((hash - Math.imul(scanned.charCodeAt(position - 1), power)) | 0, BASE) + scanned.charCodeAt(position + window - 1)) | 0;
    }
    hashes[position] = hash;
    const previous = lastSeen.get(hash);
    lastSeen.set(hash, position);
    if (runPeriod > 0 && position === runEnd + 1 && hashes[position - runPeriod] === hash) {
      runEnd = position;
    } else {
      const nearest = previous === undefined ? 0 : position - previous;
      const distance = nearest <= spacing ? nearest : 0; // copies further apart than `spacing` are not a loop
      closeRun();
      runPeriod = distance;
      runStart = position;
      runEnd = position;
    }
  }
  closeRun();
  if (best === undefined) return null;
  const start = best.start + readableOffset(scanned.slice(best.start, best.start + best.period));
  return { passage: scanned.slice(start, start + best.period), count: Math.floor(best.size / best.period) };
}

/**
 * Where to start showing a passage: after a sentence end if it has one, else after a space. Any rotation of the
 * passage is a true copy (the stretch holds at least two), so this only chooses the one a person reads best.
 */
function readableOffset(period: string): number {
  const sentence = /[.!?] /.exec(period);
  if (sentence && sentence.index + 2 < period.length) return sentence.index + 2;
  const space = period.indexOf(' ');
  return space >= 0 && space + 1 < period.length ? space + 1 : 0;
}

/** Whether one period of a stretch is a single short token (no space inside once trimmed). */
function isShortToken(text: string, start: number, period: number): boolean {
  if (period > SHORT_TOKEN + 1) return false;
  const token = text.slice(start, start + period).trim();
  return token.length <= SHORT_TOKEN && !token.includes(' ');
}

function isPeriodic(text: string, start: number, size: number, period: number): boolean {
  for (let i = start + period; i < start + size; i++) if (text.charCodeAt(i) !== text.charCodeAt(i - period)) return false;
  return true;
}

/**
 * `repeated-text`: one response repeats a passage many times (a model stuck generating the same sentence). Needs
 * no history: the response alone is the evidence. Only its prose is read: fenced code, tables, list items,
 * headings and dividers are left out (see {@link proseSegments}), and each stretch of prose is scanned on its own.
 * @internal
 */
export function findRepeatedText(
  text: string,
  stepNumber: number,
  { chunkSize, repetitions, spacing }: { chunkSize: number; repetitions: number; spacing: number },
): LoopFinding | null {
  const found = findInProse(text, chunkSize, repetitions, spacing);
  if (found === null) return null;
  const shown = found.passage.trim() || found.passage;
  return {
    kind: 'repeated-text',
    loopId: `repeated-text:${hashString(smallestRotation(found.passage)).toString(36)}`,
    evidence: { steps: [stepNumber], repetitions: found.count, text: excerpt(shown) },
    detail: `your response repeats the same passage ${found.count} times ("${excerpt(shown, 80)}")`,
  };
}

/** The repeated passage covering the most characters in any stretch of prose of `text`. */
function findInProse(text: string, chunkSize: number, repetitions: number, spacing: number): RepeatedPassage | null {
  let best: RepeatedPassage | null = null;
  for (const segment of proseSegments(text, 2 * SCANNED_CHARACTERS)) {
    const found = findRepeatedPassage(segment, chunkSize, repetitions, spacing);
    if (found && (best === null || found.count * found.passage.length > best.count * best.passage.length)) best = found;
  }
  return best;
}

/**
 * Where the scan enters a repeated stretch decides which rotation of the passage it reports ("ab ab" or "b ab a");
 * the smallest rotation names the loop the same way every time.
 */
function smallestRotation(period: string): string {
  let best = period;
  for (let start = 1; start < period.length; start++) {
    const rotation = period.slice(start) + period.slice(0, start);
    if (rotation < best) best = rotation;
  }
  return best;
}
