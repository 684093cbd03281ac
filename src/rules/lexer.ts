import type { Diagnostic } from '../diagnostics/index.js';
import type { Position } from './ast.js';

/** Token kinds of the rule language. Keywords are plain identifiers; the parser decides by position. */
export type TokenKind =
  | 'identifier'
  | 'variable'
  | 'string'
  | 'number'
  | 'duration'
  | 'path'
  | 'punctuation'
  | 'end';

export interface Token {
  kind: TokenKind;
  /** Source text for identifiers, variables, punctuation and paths; the decoded value for strings. */
  text: string;
  /** Numeric value of numbers, milliseconds of durations. */
  number?: number;
  pos: Position;
}

// Longest first, so `:-` wins over `:` and `<=` over `<`.
const PUNCTUATION = [':-', '->', '!=', '<=', '>=', '(', ')', '[', ']', '{', '}', ',', '.', ':', '=', '<', '>', '+', '-', '*', '/'];

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Splits rulebase text into tokens. Bad characters and unterminated strings become diagnostics and lexing goes on,
 * so one run reports every syntax error in a file.
 */
export function tokenize(text: string, source: string): { tokens: Token[]; diagnostics: Diagnostic[] } {
  const tokens: Token[] = [];
  const diagnostics: Diagnostic[] = [];
  let index = 0;
  let line = 1;
  let lineStart = 0;
  const pos = (at: number): Position => ({ line, column: at - lineStart + 1 });
  const error = (at: number, message: string, hint?: string) =>
    diagnostics.push({ severity: 'error', code: 'rules-syntax', message, path: '', source, ...pos(at), ...(hint ? { hint } : {}) });

  while (index < text.length) {
    const char = text[index]!;
    if (char === '\n') {
      index++;
      line++;
      lineStart = index;
      continue;
    }
    if (char === ' ' || char === '\t' || char === '\r') {
      index++;
      continue;
    }
    // `%` is Prolog's comment, `#` the one most config files use; both run to the end of the line.
    if (char === '%' || char === '#') {
      while (index < text.length && text[index] !== '\n') index++;
      continue;
    }
    const start = index;
    if (char === '"') {
      const read = readString(text, index);
      if (read.error !== undefined) error(start, read.error);
      tokens.push({ kind: 'string', text: read.value, pos: pos(start) });
      // An unterminated string swallowed the rest of the line; keep line counting honest.
      index = read.end;
      continue;
    }
    if (isDigit(char)) {
      const read = readNumber(text, index);
      index = read.end;
      const unit = /^(ms|s|m|h|d)(?![A-Za-z0-9_])/.exec(text.slice(index, index + 3));
      if (unit) {
        tokens.push({ kind: 'duration', text: text.slice(start, index + unit[1]!.length), number: read.value * DURATION_UNITS[unit[1]!]!, pos: pos(start) });
        index += unit[1]!.length;
      } else {
        tokens.push({ kind: 'number', text: text.slice(start, index), number: read.value, pos: pos(start) });
      }
      continue;
    }
    if (isIdentifierStart(char)) {
      while (index < text.length && isIdentifierPart(text[index]!)) index++;
      const word = text.slice(start, index);
      const kind = char === '_' || (char >= 'A' && char <= 'Z') ? 'variable' : 'identifier';
      tokens.push({ kind, text: word, pos: pos(start) });
      continue;
    }
    if (char === '$') {
      index = readPathEnd(text, index + 1);
      tokens.push({ kind: 'path', text: text.slice(start, index), pos: pos(start) });
      continue;
    }
    const punctuation = PUNCTUATION.find((candidate) => text.startsWith(candidate, index));
    if (punctuation) {
      tokens.push({ kind: 'punctuation', text: punctuation, pos: pos(start) });
      index += punctuation.length;
      continue;
    }
    error(start, `unexpected character ${JSON.stringify(char)}`, char === "'" ? 'quote strings with double quotes' : undefined);
    index++;
  }
  tokens.push({ kind: 'end', text: '<end of file>', pos: pos(index) });
  return { tokens, diagnostics };
}

function readString(text: string, start: number): { value: string; end: number; error?: string } {
  let index = start + 1;
  let value = '';
  while (index < text.length) {
    const char = text[index]!;
    if (char === '"') return { value, end: index + 1 };
    if (char === '\n') break;
    if (char === '\\') {
      const next = text[index + 1];
      const escapes: Record<string, string> = { n: '\n', t: '\t', '"': '"', '\\': '\\' };
      if (next !== undefined && escapes[next] !== undefined) {
        value += escapes[next];
        index += 2;
        continue;
      }
    }
    value += char;
    index++;
  }
  return { value, end: index, error: 'unterminated string' };
}

function readNumber(text: string, start: number): { value: number; end: number } {
  let index = start;
  while (index < text.length && isDigit(text[index]!)) index++;
  // A dot is a decimal point only when a digit follows; otherwise it ends the statement (`ttl 60.`).
  if (text[index] === '.' && isDigit(text[index + 1] ?? '')) {
    index++;
    while (index < text.length && isDigit(text[index]!)) index++;
  }
  return { value: Number(text.slice(start, index)), end: index };
}

/** A JSON path runs from `$` over `.key`, `[0]`, `[*]` and `["key"]`; a dot not followed by a key ends it. */
function readPathEnd(text: string, start: number): number {
  let index = start;
  for (;;) {
    if (text[index] === '.' && isIdentifierStart(text[index + 1] ?? '')) {
      index++;
      while (index < text.length && isIdentifierPart(text[index]!)) index++;
    } else if (text[index] === '[') {
      const close = text.indexOf(']', index);
      if (close === -1 || text.slice(index, close).includes('\n')) return index;
      index = close + 1;
    } else {
      return index;
    }
  }
}

function isDigit(char: string): boolean {
  return char >= '0' && char <= '9';
}

function isIdentifierStart(char: string): boolean {
  return (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') || char === '_';
}

function isIdentifierPart(char: string): boolean {
  return isIdentifierStart(char) || isDigit(char);
}
