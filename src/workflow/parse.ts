import { isMap, isScalar, LineCounter, parseDocument, type YAMLError } from 'yaml';
import { inputTooLarge, type InputKind } from '../limits/index.js';
import { fastParse } from './fast-parse.js';
import type { Finding } from './findings.js';
import { findIndentationProblem } from './indentation.js';
import { indexPositions, type PositionIndex, type SourcePosition } from './positions.js';

/**
 * How many times aliases may be expanded while building the document. A few anchors are normal in a workflow; the
 * limit stops a "billion laughs" document from expanding to gigabytes.
 */
export const MAX_ALIAS_COUNT = 100;

/** YAML text turned into plain data, with positions for every field. `data` is absent when the text is unusable. */
export interface ParsedText {
  data?: unknown;
  positions?: PositionIndex;
  findings: Finding[];
}

/**
 * Parses workflow YAML, keeping node positions. Refuses text over `maxBytes` before parsing, so a huge input costs
 * a length check, not a parse.
 */
export function parseYamlText(text: string, maxBytes: number, kind: InputKind = 'workflow'): ParsedText {
  const tooLarge = sizeFinding(text, maxBytes, kind);
  if (tooLarge) return { findings: [tooLarge] };
  const fast = fastParse(text);
  if (fast) return { data: fast.data, positions: lazyPositions(text), findings: [] };
  return parseWithPositions(text);
}

/** The `yaml` library's parse: every error and warning positioned, aliases limited, the version spelled as written. */
function parseWithPositions(text: string): ParsedText {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, merge: true, strict: true });
  const place = (offset: number | undefined): { position?: SourcePosition } => {
    if (offset === undefined) return {};
    const { line, col } = lineCounter.linePos(offset);
    return { position: { line, column: col } };
  };
  const findings: Finding[] = [
    ...yamlErrors(text, document.errors, lineCounter).map(({ line, column, ...error }): Finding => ({ severity: 'error', ...error, path: [], position: { line, column } })),
    ...document.warnings.map((warning): Finding => ({ severity: 'warning', code: 'yaml-warning', message: firstLine(warning.message), path: [], ...place(warning.pos[0]) })),
  ];
  if (document.errors.length > 0) return { findings };
  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    findings.push({
      severity: 'error',
      code: 'yaml-aliases',
      message: `${firstLine((error as Error).message)}: aliases expand more than ${MAX_ALIAS_COUNT} times`,
      path: [],
      hint: 'write the repeated parts out, or use fewer aliases',
    });
    return { findings };
  }
  keepVersionSpelling(document, data);
  return { data, positions: indexPositions(document, lineCounter), findings };
}

/** One of the YAML parser's errors as the loaders report it, placed on a line and column. */
export interface YamlError {
  code: 'duplicate-key' | 'bad-indentation' | 'yaml-syntax';
  message: string;
  hint?: string;
  line: number;
  column: number;
}

/**
 * The `yaml` parser's errors as they are reported: every duplicate key, and one syntax error. The parser goes on
 * after the first syntax error and reports what follows from it, usually on the wrong line; a bad indentation is
 * reported on the line that is wrong instead (found by `findIndentationProblem`, trusted only next to the parser's
 * first error), with how to indent it.
 */
export function yamlErrors(text: string, errors: readonly YAMLError[], lineCounter: LineCounter): YamlError[] {
  const at = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const duplicates = errors.filter((error) => error.code === 'DUPLICATE_KEY').map((error): YamlError => ({ code: 'duplicate-key', message: firstLine(error.message), ...at(error.pos[0]) }));
  const first = errors.find((error) => error.code !== 'DUPLICATE_KEY');
  if (!first) return duplicates;
  const problem = findIndentationProblem(text);
  // The errors that start where the first one does describe one mistake; their spans together cover its lines.
  const lines = (error: YAMLError) => error.pos.map((offset) => lineCounter.linePos(offset).line) as [number, number];
  const [start] = lines(first);
  const end = Math.max(...errors.filter((error) => error.code !== 'DUPLICATE_KEY' && lines(error)[0] === start).map((error) => lines(error)[1]));
  const syntax: YamlError =
    problem && problem.line >= start - 1 && problem.line <= end + 1
      ? { code: 'bad-indentation', message: problem.message, hint: problem.hint, line: problem.line, column: problem.column }
      : { code: 'yaml-syntax', message: firstLine(first.message), ...at(first.pos[0]) };
  return [...duplicates, syntax];
}

/**
 * Positions indexed on first use, by parsing the text again with `yaml`: a workflow the fast parser read needs them
 * only for a finding (a lint warning), which most never have.
 */
function lazyPositions(text: string): PositionIndex {
  let index: PositionIndex | undefined;
  const positions = () => (index ??= parseWithPositions(text).positions ?? { find: () => undefined, get: () => undefined });
  return { find: (path, at) => positions().find(path, at), get: (path) => positions().get(path) };
}

/** The input-too-large finding, or nothing. */
export function sizeFinding(text: string | number, maxBytes: number, kind: InputKind = 'workflow'): Finding | undefined {
  const tooLarge = inputTooLarge(text, maxBytes, kind);
  return tooLarge && { severity: 'error', code: 'input-too-large', message: tooLarge.message, path: [], hint: tooLarge.hint };
}

/** `version: 1.0` is the number 1 to YAML; authors mean the text they wrote. */
function keepVersionSpelling(document: ReturnType<typeof parseDocument>, data: unknown): void {
  if (!isMap(document.contents) || typeof data !== 'object' || data === null) return;
  const node = document.contents.get('version', true);
  if (isScalar(node) && typeof node.value === 'number' && typeof node.source === 'string') {
    (data as Record<string, unknown>).version = node.source;
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}
