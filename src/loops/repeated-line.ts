import { hashString } from './hash.js';
import { excerpt } from './hints.js';
import { collapseWhitespace } from './normalize.js';
import { lineKind } from './prose.js';
import type { LoopFinding } from './types.js';

/**
 * Shortest line counted, once normalised: "ok", "}" and "wait" repeat in honest prose; a reasoning loop repeats a
 * sentence ("wait, let me re-check the file").
 */
const MIN_LINE = 12;
/** Distinct lines remembered per response: bounds the memory of a 10 MB response. */
const MAX_LINES = 4096;
/** Longest line counted; the rest of a longer line is ignored for the count. */
const MAX_LINE = 1024;

/** Lines counted so far, shared by the counters of one response's streams. */
interface LineTally {
  counts: Map<string, number>;
  found: { line: string; count: number } | undefined;
}

/**
 * Counts the prose lines of one response and its reasoning, case- and whitespace-insensitive, as they arrive:
 * `push` takes any chunk of a stream (a line split across chunks is joined first), `end` closes one stream (the text,
 * then the reasoning) so their fences never mix. `sibling()` is a counter for another stream of the same response
 * (reasoning streamed beside the text), with its own partial line and fences and the same tally. Code, tables,
 * lists, headings and dividers are not counted (see {@link lineKind}). Pure state, no I/O: a host's stream transform
 * only calls it.
 * @internal
 */
export function createLineCounter(threshold: number, tally: LineTally = { counts: new Map(), found: undefined }) {
  const { counts } = tally;
  let partial = '';
  let inFence = false;

  const countLine = (raw: string) => {
    const kind = lineKind(raw);
    if (kind === 'fence') inFence = !inFence;
    // Checked on the raw line first: most lines of a long response are short, and need no normalising to be skipped.
    if (kind !== 'prose' || inFence || raw.length < MIN_LINE) return;
    const line = collapseWhitespace(raw.length > MAX_LINE ? raw.slice(0, MAX_LINE) : raw).trim().toLowerCase();
    if (line.length < MIN_LINE) return;
    const count = (counts.get(line) ?? 0) + 1;
    if (count === 1 && counts.size >= MAX_LINES) return;
    counts.set(line, count);
    if (count >= threshold && (tally.found === undefined || count > tally.found.count)) tally.found = { line, count };
  };

  return {
    push(chunk: string): void {
      // Most stream deltas end no line: they only extend the partial one, with no array or split per delta.
      let start = 0;
      for (let end = chunk.indexOf('\n'); end >= 0; end = chunk.indexOf('\n', start)) {
        countLine(partial + chunk.slice(start, end));
        partial = '';
        start = end + 1;
      }
      partial += start === 0 ? chunk : chunk.slice(start);
      // A line with no end in sight is cut, so a chunk stream without line breaks keeps bounded memory.
      if (partial.length > MAX_LINE * 4) partial = partial.slice(0, MAX_LINE);
    },
    end(): void {
      if (partial !== '') countLine(partial);
      partial = '';
      inFence = false;
    },
    /** A counter for another stream of the same response: its own lines and fences, the same counts. */
    sibling() {
      return createLineCounter(threshold, tally);
    },
    /** The most repeated line that reached `threshold`, once any has. */
    get found() {
      return tally.found;
    },
  };
}

/**
 * `repeated-line`: a line repeated `threshold` times anywhere in one response or its reasoning, not necessarily back
 * to back (a reasoning stream that keeps coming back to the same thought).
 * @internal
 */
export function findRepeatedLine(text: string, reasoning: string, stepNumber: number, threshold: number): LoopFinding | null {
  const counter = createLineCounter(threshold);
  for (const stream of [text, reasoning]) {
    if (stream === '') continue;
    counter.push(stream.length > 65_536 ? stream.slice(-65_536) : stream);
    counter.end();
  }
  return repeatedLineFinding(counter.found, stepNumber);
}

/** The finding for a line the counter found, or `null`. @internal */
export function repeatedLineFinding(found: { line: string; count: number } | undefined, stepNumber: number): LoopFinding | null {
  if (found === undefined) return null;
  return {
    kind: 'repeated-line',
    loopId: `repeated-line:${hashString(found.line).toString(36)}`,
    evidence: { steps: [stepNumber], repetitions: found.count, text: excerpt(found.line) },
    detail: `you wrote the line "${excerpt(found.line, 80)}" ${found.count} times in one response`,
  };
}
