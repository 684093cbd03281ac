import { readFile, stat } from 'node:fs/promises';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type YAMLMap } from 'yaml';
import { didYouMean } from '../../diagnostics/index.js';
import type { ScriptedAnswer } from '../../react/index.js';

/** A bad input of `panoptes verify`, with the file, line and column in its message: one error, clearly placed. */
export class VerifyInputError extends Error {
  override name = 'VerifyInputError';
}

/** A criterion as the criteria file gives it. */
export interface CriterionInput {
  id: string;
  text: string;
}

/** A case of the cases file: its id, its fields (the id among them) and its line. */
export interface CaseInput {
  id: string;
  caseBundle: Record<string, unknown>;
  line: number;
}

/** A scripted verdict (`--scripted`). */
export type AnswerInput = ScriptedAnswer;

/** A line of a results file, as a resumed job reads it back. */
export interface ResultLine {
  caseId: string;
  criterionId: string;
  status: string;
  [field: string]: unknown;
}

const CRITERION_FIELDS = ['id', 'text'];
const ANSWER_FIELDS = ['case', 'criterion', 'status', 'confidence', 'citations', 'rationale', 'query'];
const CITATION_FIELDS = ['quote', 'source', 'section'];
const STATUSES = ['met', 'not_met', 'uncertain'];

/** A file's text, or an error that names it and says what is wrong in the user's terms. */
export async function readInput(file: string, what: string): Promise<string> {
  try {
    if ((await stat(file)).isDirectory()) throw new VerifyInputError(`${file}: the ${what} is a folder, not a file`);
    return await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof VerifyInputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new VerifyInputError(`${file}: cannot read the ${what}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message}`);
  }
}

/**
 * The criteria of a YAML file: a list of `{ id, text }`, or a map with that list under `criteria`. Ids are unique
 * and texts not empty; any other field is an error, with its line and column and the closest known field.
 */
export function parseCriteria(text: string, file: string): CriterionInput[] {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const at = (node: Node | null | undefined) => position(file, lines, node?.range?.[0] ?? 0);
  const [problem] = document.errors;
  if (problem) throw new VerifyInputError(`${position(file, lines, problem.pos[0])}: not valid YAML: ${firstLine(problem.message)}`);
  let list: Node | null | undefined = document.contents;
  if (isMap(list)) {
    for (const pair of list.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      if (key !== 'criteria') throw new VerifyInputError(`${at(pair.key as Node)}: unknown key '${key}'${suggest(key, ['criteria'])}; the file is a list of criteria, or has it under 'criteria'`);
    }
    list = list.get('criteria', true) as Node | undefined;
  }
  if (!isSeq(list)) throw new VerifyInputError(`${at(list ?? document.contents)}: expected a list of criteria ({ id, text }), or one under 'criteria'`);
  if (list.items.length === 0) throw new VerifyInputError(`${at(list)}: the list of criteria is empty`);
  const seen = new Map<string, string>();
  return list.items.map((item, index) => {
    const node = item as Node;
    if (!isMap(node)) throw new VerifyInputError(`${at(node)}: criterion ${index + 1} is not a map of id and text`);
    for (const pair of (node as YAMLMap).items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      if (!CRITERION_FIELDS.includes(key)) throw new VerifyInputError(`${at(pair.key as Node)}: unknown field '${key}' in criterion ${index + 1}${suggest(key, CRITERION_FIELDS)}; a criterion has: ${CRITERION_FIELDS.join(', ')}`);
    }
    const id = node.get('id', true) as Node | undefined;
    const body = node.get('text', true) as Node | undefined;
    const idValue = isScalar(id) && (typeof id.value === 'string' || typeof id.value === 'number') ? String(id.value).trim() : '';
    if (idValue === '') throw new VerifyInputError(`${at(id ?? node)}: criterion ${index + 1} has no id`);
    if (!/^[\w.:-]+$/.test(idValue)) throw new VerifyInputError(`${at(id)}: criterion id '${idValue}' has characters other than letters, digits, _ . : -`);
    if (!isScalar(body) || typeof body.value !== 'string' || body.value.trim() === '') throw new VerifyInputError(`${at(body ?? node)}: criterion '${idValue}' has no text: give the requirement in the policy's words`);
    const earlier = seen.get(idValue);
    if (earlier) throw new VerifyInputError(`${at(id)}: criterion id '${idValue}' is used twice (first at ${earlier})`);
    seen.set(idValue, at(id));
    return { id: idValue, text: body.value.trim() };
  });
}

/**
 * The cases of a JSONL file: one JSON object per line with an `id` (a string or a number), blank lines skipped.
 * The whole object is the case the verifier reads. Ids are unique.
 */
export function parseCases(text: string, file: string): CaseInput[] {
  const cases: CaseInput[] = [];
  const seen = new Map<string, number>();
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.replace(/\r$/, '');
    if (line.trim() === '') continue;
    const value = parseJsonLine(line, file, index + 1);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new VerifyInputError(`${file}:${index + 1}:1: expected a JSON object (a case's fields), got ${Array.isArray(value) ? 'a list' : JSON.stringify(value)}`);
    const raw = (value as Record<string, unknown>).id;
    const id = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : '';
    if (id === '') throw new VerifyInputError(`${file}:${index + 1}:${column(line, '"id"')}: the case has no "id" (a string or a number): every case needs one, so its results can be matched to it`);
    const earlier = seen.get(id);
    if (earlier !== undefined) throw new VerifyInputError(`${file}:${index + 1}:${column(line, '"id"')}: case id '${id}' is used twice (first on line ${earlier})`);
    seen.set(id, index + 1);
    cases.push({ id, caseBundle: value as Record<string, unknown>, line: index + 1 });
  }
  if (cases.length === 0) throw new VerifyInputError(`${file}:1:1: no cases: expected one JSON object per line`);
  return cases;
}

/** The scripted verdicts of `--scripted`: a JSON list, each for a case and a criterion of this job. */
export function parseAnswers(text: string, file: string, caseIds: ReadonlySet<string>, criterionIds: ReadonlySet<string>): AnswerInput[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new VerifyInputError(`${jsonPosition(text, file, error as Error)}: not JSON: ${jsonReason(error as Error)}`);
  }
  // Positions come from a YAML parse of the same text (JSON is YAML), made only for an error: it costs more than JSON.parse.
  // With `key`, the position of that key in the map at `path` (an unknown field is pointed at by its name).
  const at = (path: Array<string | number>, key?: string) => {
    const lines = new LineCounter();
    const document = parseDocument(text, { lineCounter: lines });
    const node = document.getIn(path, true) as Node | undefined;
    const pair = key !== undefined && isMap(node) ? node.items.find((item) => isScalar(item.key) && item.key.value === key) : undefined;
    const keyNode = pair?.key as Node | undefined;
    return position(file, lines, keyNode?.range?.[0] ?? node?.range?.[0] ?? document.contents?.range?.[0] ?? 0);
  };
  if (!Array.isArray(value) || value.length === 0) throw new VerifyInputError(`${at([])}: expected a non-empty JSON list of answers ({ case, criterion, status, confidence, citations, rationale })`);
  const seen = new Set<string>();
  return value.map((answer: unknown, index) => {
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) throw new VerifyInputError(`${at([index])}: answer ${index + 1} is not an object`);
    const record = answer as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (!ANSWER_FIELDS.includes(key)) throw new VerifyInputError(`${at([index], key)}: unknown field '${key}' in answer ${index + 1}${suggest(key, ANSWER_FIELDS)}; an answer has: ${ANSWER_FIELDS.join(', ')}`);
    }
    const caseId = typeof record.case === 'string' || typeof record.case === 'number' ? String(record.case) : undefined;
    if (caseId === undefined || !caseIds.has(caseId)) throw new VerifyInputError(`${at([index, 'case'])}: answer ${index + 1} is for case ${JSON.stringify(record.case)}, which the cases file does not have`);
    if (typeof record.criterion !== 'string' || !criterionIds.has(record.criterion)) throw new VerifyInputError(`${at([index, 'criterion'])}: answer ${index + 1} is for criterion ${JSON.stringify(record.criterion)}, which the criteria file does not have${suggest(String(record.criterion), criterionIds)}`);
    if (typeof record.status !== 'string' || !STATUSES.includes(record.status)) throw new VerifyInputError(`${at([index, 'status'])}: answer ${index + 1} has status ${JSON.stringify(record.status)}; expected ${STATUSES.join(', ')}`);
    if (typeof record.confidence !== 'number' || !(record.confidence >= 0 && record.confidence <= 1)) throw new VerifyInputError(`${at([index, 'confidence'])}: answer ${index + 1} needs a confidence between 0 and 1`);
    if (typeof record.rationale !== 'string') throw new VerifyInputError(`${at([index, 'rationale'])}: answer ${index + 1} needs a rationale (text)`);
    if (record.query !== undefined && typeof record.query !== 'string') throw new VerifyInputError(`${at([index, 'query'])}: answer ${index + 1}: query must be text`);
    const citations = record.citations ?? [];
    if (!Array.isArray(citations)) throw new VerifyInputError(`${at([index, 'citations'])}: answer ${index + 1}: citations must be a list of { quote, source?, section? }`);
    citations.forEach((citation: unknown, position) => {
      const fields = (typeof citation === 'object' && citation !== null ? citation : {}) as Record<string, unknown>;
      const unknown = Object.keys(fields).find((key) => !CITATION_FIELDS.includes(key));
      if (unknown) throw new VerifyInputError(`${at([index, 'citations', position], unknown)}: unknown field '${unknown}' in a citation of answer ${index + 1}${suggest(unknown, CITATION_FIELDS)}; a citation has: ${CITATION_FIELDS.join(', ')}`);
      if (typeof fields.quote !== 'string' || fields.quote.trim() === '') throw new VerifyInputError(`${at([index, 'citations', position])}: citation ${position + 1} of answer ${index + 1} has no quote`);
    });
    const key = `${caseId}\u0000${record.criterion}`;
    if (seen.has(key)) throw new VerifyInputError(`${at([index])}: a second answer for case '${caseId}', criterion '${record.criterion}'`);
    seen.add(key);
    return { ...(record as unknown as AnswerInput), case: caseId, citations: citations as AnswerInput['citations'] };
  });
}

/** Prices per million tokens by model name (`--prices`): `{ "gpt-4o-mini": { "input": 0.15, "output": 0.6 } }`. */
export function parsePrices(text: string, file: string): Record<string, { input: number; output: number }> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new VerifyInputError(`${jsonPosition(text, file, error as Error)}: not JSON: ${jsonReason(error as Error)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new VerifyInputError(`${file}:1:1: expected { "<model>": { "input": <USD per million>, "output": <USD per million> } }`);
  for (const [model, price] of Object.entries(value)) {
    const { input, output } = (price ?? {}) as { input?: unknown; output?: unknown };
    if (typeof input !== 'number' || typeof output !== 'number' || input < 0 || output < 0) throw new VerifyInputError(`${file}:${lineOf(text, JSON.stringify(model))}: the price of ${model} needs "input" and "output" in USD per million tokens`);
  }
  return value as Record<string, { input: number; output: number }>;
}

/**
 * The results already written (`--resume`): every complete line, and how many bytes they take. A last line the
 * killed run left unfinished (no newline, not JSON) is not counted: the caller cuts it off. A bad line before the
 * end is an error, since the file is then not one this command wrote.
 */
export function parseResults(text: string, file: string): { results: ResultLine[]; validBytes: number; droppedPartialLine: boolean } {
  const results: ResultLine[] = [];
  let offset = 0;
  let lineNumber = 0;
  while (offset < text.length) {
    lineNumber++;
    const end = text.indexOf('\n', offset);
    const line = text.slice(offset, end < 0 ? undefined : end);
    if (end < 0) {
      // the last line, written without its newline: complete if it parses, else cut off by a kill
      try {
        results.push(resultOf(JSON.parse(line), file, lineNumber));
        return { results, validBytes: text.length, droppedPartialLine: false };
      } catch {
        return { results, validBytes: Buffer.byteLength(text.slice(0, offset)), droppedPartialLine: line.trim() !== '' };
      }
    }
    if (line.trim() !== '') results.push(resultOf(parseJsonLine(line, file, lineNumber), file, lineNumber));
    offset = end + 1;
  }
  return { results, validBytes: Buffer.byteLength(text), droppedPartialLine: false };
}

function resultOf(value: unknown, file: string, line: number): ResultLine {
  const record = value as Partial<ResultLine> | null;
  if (typeof record !== 'object' || record === null || typeof record.caseId !== 'string' || typeof record.criterionId !== 'string' || typeof record.status !== 'string') {
    throw new VerifyInputError(`${file}:${line}:1: not a result of panoptes verify (no caseId, criterionId and status): --resume continues a results file this command wrote`);
  }
  return record as ResultLine;
}

export function parseJsonLine(line: string, file: string, lineNumber: number): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    const at = /at position (\d+)/.exec((error as Error).message);
    throw new VerifyInputError(`${file}:${lineNumber}:${at ? Number(at[1]) + 1 : 1}: not JSON: ${jsonReason(error as Error)}`);
  }
}

/** `file:line:col` of a JSON.parse error in a whole file. */
function jsonPosition(text: string, file: string, error: Error): string {
  const at = /at position (\d+)/.exec(error.message);
  if (!at) return `${file}:1:1`;
  const before = text.slice(0, Number(at[1]));
  const line = before.split('\n').length;
  return `${file}:${line}:${Number(at[1]) - before.lastIndexOf('\n')}`;
}

function jsonReason(error: Error): string {
  return error.message.replace(/ in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '');
}

function position(file: string, lines: LineCounter, offset: number): string {
  const { line, col } = lines.linePos(offset);
  return `${file}:${line}:${col}`;
}

function suggest(name: string, known: Iterable<string>): string {
  const hint = didYouMean(name, known);
  return hint ? ` (${hint})` : '';
}

export function column(line: string, text: string): number {
  const at = line.indexOf(text);
  return at < 0 ? 1 : at + 1;
}

function lineOf(text: string, needle: string): string {
  const at = text.indexOf(needle);
  if (at < 0) return '1:1';
  const before = text.slice(0, at);
  return `${before.split('\n').length}:${at - before.lastIndexOf('\n')}`;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}
