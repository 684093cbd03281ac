import { basename } from 'node:path';

/** A passage of a policy as a retriever returns it: its file, the headings above it, its text and where it is. */
export interface PolicyChunk {
  /** The document it comes from (a file name, unless two files share one). */
  source: string;
  /** The headings above it, outermost first, joined with ` > ` (`Travel Policy > 4. Meals > 4.2 Alcohol`); none before the first heading or in plain text. */
  section?: string;
  /** Its text: the section's body, without the heading line. */
  text: string;
  /** Lines of the source it spans, 1-based, inclusive. */
  startLine: number;
  endLine: number;
}

/** Options of {@link splitPolicy}. */
export interface SplitPolicyOptions {
  /** What the chunks name as their `source`. */
  source: string;
  /** `markdown`: sections by heading (ATX `#` and setext underlines; none inside code fences). `text`: paragraphs only. @default 'markdown' */
  format?: 'markdown' | 'text';
  /** Longest chunk, in characters: a longer section is cut between paragraphs (a longer paragraph between sentences). @default 1200 */
  maxChunkChars?: number;
}

/** Chunk length unless told otherwise: a few paragraphs, so a search answer quotes whole clauses. */
export const DEFAULT_MAX_CHUNK_CHARS = 1200;

/** The heading path separator of {@link PolicyChunk.section}. */
export const SECTION_SEPARATOR = ' > ';

/**
 * Cuts a policy into chunks that know their section: each Markdown heading opens a section named by the path of the
 * headings above it, and a section longer than `maxChunkChars` becomes several chunks with the same `section`. A
 * citation of a chunk thus names a section a reader can find. Plain text has no sections: it is cut by paragraphs.
 * @example
 * splitPolicy('# Travel\n## 4. Meals\nAlcohol is not reimbursed.', { source: 'travel.md' })
 * // [{ source: 'travel.md', section: 'Travel > 4. Meals', text: 'Alcohol is not reimbursed.', startLine: 3, endLine: 3 }]
 */
export function splitPolicy(text: string, { source, format = 'markdown', maxChunkChars = DEFAULT_MAX_CHUNK_CHARS }: SplitPolicyOptions): PolicyChunk[] {
  if (!(Number.isInteger(maxChunkChars) && maxChunkChars >= 100)) throw new RangeError(`maxChunkChars must be a whole number >= 100, got ${maxChunkChars}`);
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const chunks: PolicyChunk[] = [];
  const headings: string[] = [];
  let body: Array<{ line: number; text: string }> = [];
  const flush = () => {
    const section = headings.filter(Boolean).join(SECTION_SEPARATOR) || undefined;
    for (const piece of chunkParagraphs(paragraphs(body), maxChunkChars)) chunks.push({ source, ...(section === undefined ? {} : { section }), ...piece });
    body = [];
  };
  let fence: string | undefined;
  // Whether the line before continues a paragraph: a setext underline then belongs to it, and only a single-line
  // paragraph is taken for a heading here (CommonMark would take the whole paragraph).
  let inParagraph = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (format === 'markdown') {
      const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence !== undefined || marker !== undefined) inParagraph = false;
      if (fence !== undefined) {
        if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
      } else if (marker !== undefined) {
        fence = marker;
      } else {
        const atx = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
        const next = lines[index + 1];
        const setext = !inParagraph && line.trim() !== '' && next !== undefined && /^ {0,3}(=+|-+)[ \t]*$/.test(next) ? (next.trim()[0] === '=' ? 1 : 2) : undefined;
        inParagraph = line.trim() !== '';
        if (atx || setext) {
          inParagraph = false;
          flush();
          const level = atx ? atx[1]!.length : setext!;
          headings.length = level;
          headings[level - 1] = cleanHeading(atx ? (atx[2] ?? '') : line);
          if (setext) index++;
          continue;
        }
      }
    }
    body.push({ line: index + 1, text: line });
  }
  flush();
  return chunks;
}

/**
 * Names for policy files as citations show them: the file name, or the path as given when two files share a name.
 * @example
 * policySourceNames(['policies/travel.md', 'old/travel.md', 'meals.md']) // ['policies/travel.md', 'old/travel.md', 'meals.md']
 */
export function policySourceNames(paths: readonly string[]): string[] {
  const names = paths.map((path) => basename(path));
  return names.map((name, index) => (names.indexOf(name) !== names.lastIndexOf(name) ? paths[index]! : name));
}

/**
 * Where a quote occurs in a text, compared as citations are verified (case, runs of whitespace, typographic quotes
 * and dashes normalised), as offsets into the original text: what a report highlights. Undefined when it does not.
 * @example
 * findQuoteSpan('Alcohol is   NOT reimbursed.', 'alcohol is not reimbursed') // { start: 0, end: 27 }
 */
export function findQuoteSpan(text: string, quote: string): { start: number; end: number } | undefined {
  const wanted = normalizeWithOffsets(quote).text.trim();
  if (wanted === '') return undefined;
  const { text: normalized, offsets } = normalizeWithOffsets(text);
  const at = normalized.indexOf(wanted);
  if (at < 0) return undefined;
  const last = offsets[at + wanted.length - 1]!;
  return { start: offsets[at]!, end: last + (text.codePointAt(last)! > 0xffff ? 2 : 1) };
}

/** The text lower-cased, with quotes and dashes as ASCII and whitespace runs as one space, and each character's offset in the original. */
function normalizeWithOffsets(text: string): { text: string; offsets: number[] } {
  let out = '';
  const offsets: number[] = [];
  let offset = 0;
  let space = false;
  for (const character of text) {
    if (/\s/.test(character)) {
      if (!space) {
        out += ' ';
        offsets.push(offset);
      }
      space = true;
    } else {
      space = false;
      const mapped = character
        .toLowerCase()
        .replace(/[\u2018\u2019\u201b\u2032]/g, "'")
        .replace(/[\u201c\u201d\u201f\u2033]/g, '"')
        .replace(/[\u2010-\u2015]/g, '-');
      out += mapped;
      // one offset per UTF-16 unit of the output, as indexOf counts them
      for (let unit = 0; unit < mapped.length; unit++) offsets.push(offset);
    }
    offset += character.length;
  }
  return { text: out, offsets };
}

function cleanHeading(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

type Paragraph = { text: string; startLine: number; endLine: number };

/** Blank-line separated paragraphs, trimmed, with their lines. */
function paragraphs(lines: Array<{ line: number; text: string }>): Paragraph[] {
  const found: Paragraph[] = [];
  let current: Array<{ line: number; text: string }> = [];
  const close = () => {
    if (current.length > 0) found.push({ text: current.map((line) => line.text.trimEnd()).join('\n').trim(), startLine: current[0]!.line, endLine: current.at(-1)!.line });
    current = [];
  };
  for (const line of lines) {
    if (line.text.trim() === '') close();
    else current.push(line);
  }
  close();
  return found;
}

/** Paragraphs joined into chunks of at most `max` characters; a paragraph longer than that is cut between sentences. */
function chunkParagraphs(list: Paragraph[], max: number): Array<Omit<PolicyChunk, 'source' | 'section'>> {
  const chunks: Array<Omit<PolicyChunk, 'source' | 'section'>> = [];
  let current: Paragraph | undefined;
  const pieces = list.flatMap((paragraph) => (paragraph.text.length <= max ? [paragraph] : cutParagraph(paragraph, max)));
  for (const piece of pieces) {
    if (current && current.text.length + 2 + piece.text.length <= max) current = { text: `${current.text}\n\n${piece.text}`, startLine: current.startLine, endLine: piece.endLine };
    else {
      if (current) chunks.push(current);
      current = piece;
    }
  }
  if (current) chunks.push(current);
  return chunks;
}

function cutParagraph(paragraph: Paragraph, max: number): Paragraph[] {
  const sentences = paragraph.text.split(/(?<=[.!?;:])\s+/);
  const out: Paragraph[] = [];
  let text = '';
  for (const sentence of sentences.flatMap((sentence) => (sentence.length <= max ? [sentence] : (sentence.match(new RegExp(`.{1,${max}}(\\s|$)`, 'gs')) ?? [sentence]).map((part) => part.trim())))) {
    if (text && text.length + 1 + sentence.length > max) {
      out.push({ ...paragraph, text });
      text = sentence;
    } else text = text ? `${text} ${sentence}` : sentence;
  }
  if (text) out.push({ ...paragraph, text });
  return out;
}
