/**
 * The prose of a Markdown response: the text checks look for a model chanting, and code, tables, lists, headings
 * and dividers repeat by design (a table's `|---|---|` row, a hex dump, the same line in ten test cases). Gemini CLI's
 * loop detection leaves the same constructs alone, for the same reason.
 */

/** A fence opens or closes a code block: three or more backticks or tildes, indented at most three spaces. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/**
 * Lines that are never prose: table rows, headings, list items, block quotes, and divider lines (one punctuation
 * character repeated, with or without spaces: `---`, `= = =`, `***`).
 */
const NOT_PROSE = /^\s*(?:\||#{1,6}(?:\s|$)|[-*+](?:\s|$)|\d{1,9}[.)](?:\s|$)|>)|^\s*([-=_*~#+.:|<>/\\])(?:\s*\1){2,}\s*$/;

/**
 * What one line of Markdown is to the text checks: a fence (opens or closes code), prose, or something else (a table
 * row, a heading, a list item, a block quote, a divider).
 * @internal
 */
export function lineKind(line: string): 'fence' | 'prose' | 'other' {
  if (FENCE.test(line)) return 'fence';
  return NOT_PROSE.test(line) ? 'other' : 'prose';
}

/**
 * Splits `text` into its stretches of prose, in order, leaving out fenced code and the lines {@link NOT_PROSE}
 * matches. Each stretch is checked on its own, so a passage never counts across a code block or a table. A fence
 * still open at the end of the text (a response cut short inside a code block) hides the rest, as Markdown renders it.
 *
 * Only the last `limit` characters are split, but fences before them are counted, so a tail that starts inside a
 * code block is known to.
 * @internal
 */
export function proseSegments(text: string, limit = Infinity): string[] {
  const start = text.length > limit ? text.length - limit : 0;
  let inFence = start > 0 && fenceOpenAt(text, start);
  const segments: string[] = [];
  let current: string[] = [];
  const close = () => {
    if (current.length > 0) segments.push(current.join('\n'));
    current = [];
  };
  let lineStart = start;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    const line = text.slice(lineStart, lineEnd);
    const fence = FENCE.exec(line);
    if (fence) {
      const closing = inFence;
      inFence = !inFence;
      close();
      // Text glued to a closing fence (a stream's chunks: "```" then the next sentence) is prose again, as Gemini CLI
      // reads it; after an opening fence it is the block's language.
      const after = closing ? line.slice(fence[0].length) : '';
      if (after.trim() !== '') current.push(after);
    } else if (inFence || NOT_PROSE.test(line)) {
      close();
    } else {
      current.push(line);
    }
    lineStart = lineEnd + 1;
  }
  close();
  return segments;
}

/** Whether a code block is open at `offset`: an odd number of fence lines before it. */
function fenceOpenAt(text: string, offset: number): boolean {
  const before = text.slice(0, offset);
  if (!before.includes('```') && !before.includes('~~~')) return false;
  const fences = before.match(/^ {0,3}(?:`{3,}|~{3,})/gm);
  return (fences?.length ?? 0) % 2 === 1;
}
