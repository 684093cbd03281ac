import { basename, extname } from 'node:path';
import { ACCEPTED_FORMATS, fromOtelExport, isOtelExport, isRun, runConversation, toOpenAiMessages } from './importers/index.js';
import { convertMessages, describe, isRecord, jsonErrorText } from './messages.js';
import type { Transcript, TranscriptProblem } from './types.js';

/**
 * `json`: one session, a JSON array of messages. `jsonl`: one `{ "id", "messages" }` session per line. `unknown`: a
 * file that is neither by name nor by its first character (a README caught by a glob), reported once.
 */
export type TranscriptFormat = 'json' | 'jsonl' | 'unknown';

/** What one transcript file held: the sessions that can be replayed, and what could not be read. */
export interface ParsedTranscripts {
  transcripts: Transcript[];
  problems: TranscriptProblem[];
}

/**
 * The format of a file: `.jsonl` and `.ndjson` are JSONL, `.json` is JSON; any other name is sniffed (a leading
 * `[` is a JSON array, anything else JSONL).
 */
export function transcriptFormat(file: string, text: string): TranscriptFormat {
  const extension = extname(file).toLowerCase();
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  if (extension === '.json') return 'json';
  const start = text.slice(0, 1024).trimStart()[0];
  return start === '[' ? 'json' : start === '{' ? 'jsonl' : 'unknown';
}

/**
 * Parses the text of one transcript file: OpenAI chat messages, or (detected by shape) AI SDK `ModelMessage[]`,
 * LangChain messages and LangChain/LangSmith run exports, or an OpenTelemetry GenAI trace export. Never throws: a file that is not JSON, a line that
 * is not a session, or a session with a bad message becomes a problem with the file, line and message index, and
 * the rest of the file is still read. Linear in the text's size (one `JSON.parse` per file or line).
 * @param file The file name, used for session ids (`support.json` -> `support`) and in problems.
 * @example
 * const { transcripts, problems } = parseTranscripts(await readFile('chats.jsonl', 'utf8'), { file: 'chats.jsonl' });
 */
export function parseTranscripts(text: string, { file, format = transcriptFormat(file, text) }: { file: string; format?: TranscriptFormat }): ParsedTranscripts {
  if (format === 'unknown') return failed({ file, text: 'not a transcript: expected a .json file holding an array of messages, or a .jsonl file with one session per line' });
  return format === 'json' ? parseJsonFile(text, file) : parseJsonLines(text, file);
}

/** The session id of a `.json` file: its name without the extension. */
export function sessionIdOf(file: string): string {
  return basename(file, extname(file));
}

function parseJsonFile(text: string, file: string): ParsedTranscripts {
  if (text.trim() === '') return failed({ file, text: 'not JSON: the file is empty' });
  const parsed = parseJson(text);
  if ('error' in parsed) return failed({ file, ...parsed.where, text: `not JSON: ${parsed.error}` });
  const value = parsed.value;
  const imported = importedSessions(value, file);
  if (imported) return imported;
  // A `{ "messages": [...] }` object (the fine-tuning format) is accepted too; the file name stays the default id.
  if (isRecord(value) && Array.isArray(value.messages)) return session(value.messages, idOf(value.id) ?? sessionIdOf(file), { file });
  if (!Array.isArray(value)) {
    return failed({ file, text: `expected a JSON array of chat messages (or an object with a "messages" array), got ${describe(value)}${keysOf(value)}; ${ACCEPTED_FORMATS}` });
  }
  return session(value, sessionIdOf(file), { file });
}

function parseJsonLines(text: string, file: string): ParsedTranscripts {
  const result: ParsedTranscripts = { transcripts: [], problems: [] };
  let lineNumber = 0;
  // indexOf walks the text once; splitting a 10 MB line is one slice, so the whole file is linear.
  for (let start = 0; start <= text.length; ) {
    const end = text.indexOf('\n', start);
    const stop = end === -1 ? text.length : end;
    lineNumber += 1;
    const line = text.slice(start, stop).trim();
    start = stop + 1;
    if (line !== '') addLine(result, line, file, lineNumber);
    if (end === -1) break;
  }
  if (result.transcripts.length === 0 && result.problems.length === 0) result.problems.push({ file, text: 'no sessions: the file is empty' });
  return result;
}

function addLine(result: ParsedTranscripts, line: string, file: string, lineNumber: number): void {
  const parsed = parseJson(line);
  if ('error' in parsed) {
    result.problems.push({ file, line: lineNumber, ...(parsed.where.column === undefined ? {} : { column: parsed.where.column }), text: `not JSON: ${parsed.error}` });
    return;
  }
  const value = parsed.value;
  if (isRun(value)) {
    const run = runConversation(value);
    const one = session(run.messages, run.id ?? `${sessionIdOf(file)}:${lineNumber}`, { file, line: lineNumber });
    result.transcripts.push(...one.transcripts);
    result.problems.push(...one.problems);
    return;
  }
  if (!isRecord(value) || !Array.isArray(value.messages)) {
    const got = isRecord(value) ? `an object without a "messages" array${keysOf(value)}` : describe(value);
    result.problems.push({ file, line: lineNumber, text: `expected a session object { "id", "messages": [...] }, got ${got}` });
    return;
  }
  if (value.id !== undefined && idOf(value.id) === undefined) {
    result.problems.push({ file, line: lineNumber, text: `id: expected a string or a number, got ${describe(value.id)}` });
    return;
  }
  // Lines without an id (OpenAI's fine-tuning files have none) are named after their file and line.
  const id = idOf(value.id) ?? `${sessionIdOf(file)}:${lineNumber}`;
  const one = session(value.messages, id, { file, line: lineNumber });
  result.transcripts.push(...one.transcripts);
  result.problems.push(...one.problems);
}

/**
 * A file in one of the other formats, detected by shape: an OpenTelemetry trace export (a session per trace), a
 * LangChain/LangSmith run, or a list of runs. `undefined` for anything else, which is read as OpenAI messages.
 */
function importedSessions(value: unknown, file: string): ParsedTranscripts | undefined {
  if (isOtelExport(value)) {
    const conversations = fromOtelExport(value);
    if (conversations.length === 0) return failed({ file, text: 'an OpenTelemetry trace export without GenAI spans: no span has gen_ai.input.messages or gen_ai.output.messages' });
    return merge(conversations.map(({ id, messages }) => session(messages, id, { file })));
  }
  if (isRun(value)) {
    const run = runConversation(value);
    return session(run.messages, run.id ?? sessionIdOf(file), { file });
  }
  if (Array.isArray(value) && value.length > 0 && value.every(isRun)) {
    return merge(value.map((run, index) => {
      const conversation = runConversation(run);
      return session(conversation.messages, conversation.id ?? `${sessionIdOf(file)}:${index + 1}`, { file });
    }));
  }
  return undefined;
}

function merge(parts: readonly ParsedTranscripts[]): ParsedTranscripts {
  return { transcripts: parts.flatMap((part) => part.transcripts), problems: parts.flatMap((part) => part.problems) };
}

function session(raw: unknown[], id: string, origin: Transcript['origin']): ParsedTranscripts {
  // LangChain and AI SDK message lists are turned into OpenAI messages first; OpenAI messages pass unchanged.
  const { messages, warnings, errors } = convertMessages(toOpenAiMessages(raw));
  if (errors.length > 0) return { transcripts: [], problems: errors.map((text) => ({ ...origin, session: id, text })) };
  return { transcripts: [{ id, origin, messages, warnings }], problems: [] };
}

function failed(problem: TranscriptProblem): ParsedTranscripts {
  return { transcripts: [], problems: [problem] };
}

function idOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function keysOf(value: unknown): string {
  if (!isRecord(value)) return '';
  const keys = Object.keys(value).slice(0, 5);
  return keys.length === 0 ? ' (empty)' : ` with keys ${keys.join(', ')}`;
}

/** `JSON.parse`, with V8's character offset turned into a line and column a reader can jump to. */
function parseJson(text: string): { value: unknown } | { error: string; where: { line?: number; column?: number } } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const clean = jsonErrorText(message.replace(/ in JSON at position \d+.*$/, '').replace(/ \(line \d+ column \d+\)$/, ''));
    // V8 gives an offset for most errors; a truncated text ends where the input does.
    const position = /at position (\d+)/.exec(message)?.[1];
    const offset = position !== undefined ? Number(position) : /Unexpected end of JSON input/.test(message) ? text.trimEnd().length : undefined;
    return { error: clean, where: offset === undefined ? {} : lineAndColumn(text, offset) };
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) {
    line += 1;
    lineStart = index + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
