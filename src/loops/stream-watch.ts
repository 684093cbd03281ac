import { createLineCounter, repeatedLineFinding } from './repeated-line.js';
import { lineKind } from './prose.js';
import { findRepeatedText } from './repeated-text.js';
import type { ResolvedLoopOptions } from './options.js';
import type { LoopFinding } from './types.js';

/**
 * Text kept of a streamed response for `repeated-text` (at least twice `chunkSize x repetitions`): the buffer is
 * trimmed to this once it is twice as long. A chant ends at the newest text, so a rescan needs only the recent part;
 * a loop with passages too long for it is still found on the finished response. Bounds a stream's memory and the
 * cost of each rescan however long the stream runs.
 */
const KEPT_TEXT = 8_192;

/** Characters of new text between two `repeated-text` scans of a stream (at least one full `chunkSize x repetitions`). */
const RESCAN_EVERY = 4_096;

/**
 * Watches one streamed response as it arrives, for the text checks that need no history (`repeated-text`,
 * `repeated-line`), so a host can cut a response short once it starts chanting instead of paying for every token up
 * to the length limit. Synchronous and bounded: `repeated-line` counts each line as it ends, `repeated-text` scans
 * the last 8 to 16 KB every 4 KB of new text. Returned by
 * {@link LoopDetector.watchStream}; the finished response is still observed as usual, so the report, its escalation
 * and the hint come from `observe`, as for a response that was not streamed.
 */
export interface StreamWatch {
  /** Takes a delta of the response's text; returns the first loop it completes (then `null` for the rest). */
  text(delta: string): LoopFinding | null;
  /** Takes a delta of the model's reasoning; `repeated-line` counts reasoning and text together. */
  reasoning(delta: string): LoopFinding | null;
  /** The loop found so far, if any. */
  readonly found: LoopFinding | null;
}

/**
 * @param onFailure Told once if a check throws (a defect of ours): the watch then stops watching, fail-open, and the
 *   finished response is still observed.
 * @internal
 */
export function createStreamWatch(config: Pick<ResolvedLoopOptions, 'repeatedLine' | 'repeatedText'>, onFailure: (error: unknown) => void): StreamWatch {
  const lines = config.repeatedLine ? createLineCounter(config.repeatedLine) : undefined;
  // One counter per stream, so a line split across text and reasoning deltas is never joined; one tally for both.
  const reasoningLines = lines?.sibling();
  const repeats = config.repeatedText ? config.repeatedText.chunkSize * config.repeatedText.repetitions : 0;
  const kept = Math.max(KEPT_TEXT, 2 * repeats);
  const rescanEvery = Math.max(RESCAN_EVERY, repeats);
  let text = '';
  let unscanned = 0;
  let found: LoopFinding | null = null;

  let failed = false;
  const lineFinding = () => (lines?.found ? repeatedLineFinding(lines.found, 1) : null);
  const safely = (check: (delta: string) => LoopFinding | null) => (delta: string) => {
    if (failed || found || typeof delta !== 'string' || delta === '') return null;
    try {
      return check(delta);
    } catch (error) {
      failed = true;
      onFailure(error);
      return null;
    }
  };

  return {
    text: safely((delta) => {
      lines?.push(delta);
      found = lineFinding();
      if (found === null && config.repeatedText) {
        text += delta;
        if (text.length > 2 * kept) text = keptTail(text, kept);
        unscanned += delta.length;
        if (unscanned >= rescanEvery) {
          unscanned = 0;
          found = findRepeatedText(text, 1, config.repeatedText);
        }
      }
      return found;
    }),
    reasoning: safely((delta) => {
      if (reasoningLines === undefined) return null;
      reasoningLines.push(delta);
      found = lineFinding();
      return found;
    }),
    get found() {
      return found;
    },
  };
}

/**
 * The last `kept` characters of `text` from a line start, opened with a fence line when the dropped part leaves a
 * code block open, so the check still reads the code as code (and the next trim counts that fence too).
 */
function keptTail(text: string, kept: number): string {
  const cut = text.indexOf('\n', text.length - kept) + 1 || text.length - kept;
  let fences = 0;
  for (const line of text.slice(0, cut).split('\n')) if (lineKind(line) === 'fence') fences++;
  return (fences % 2 === 1 ? '```\n' : '') + text.slice(cut);
}
