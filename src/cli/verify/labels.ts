import { column, parseJsonLine, VerifyInputError } from './inputs.js';

/** A reviewer's verdict on a case and criterion, from `--labels`. */
export interface LabelInput {
  caseId: string;
  criterionId: string;
  status: 'met' | 'not_met' | 'uncertain';
}

const STATUSES = ['met', 'not_met', 'uncertain'];

/**
 * The labelled set of `--labels`: a JSONL file, one `{ "caseId", "criterionId", "status" }` per line, each pair of
 * this job at most once. An error names the file, line and column, and what to write instead.
 */
export function parseLabels(text: string, file: string, caseIds: ReadonlySet<string>, criterionIds: ReadonlySet<string>): LabelInput[] {
  const labels: LabelInput[] = [];
  const seen = new Map<string, number>();
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.replace(/\r$/, '');
    if (line.trim() === '') continue;
    const where = (field: string) => `${file}:${index + 1}:${column(line, `"${field}"`)}`;
    const value = parseJsonLine(line, file, index + 1) as Record<string, unknown>;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new VerifyInputError(`${file}:${index + 1}:1: expected a JSON object { "caseId", "criterionId", "status" }, got ${Array.isArray(value) ? 'a list' : JSON.stringify(value)}`);
    const caseId = typeof value.caseId === 'number' ? String(value.caseId) : value.caseId;
    if (typeof caseId !== 'string' || !caseIds.has(caseId)) throw new VerifyInputError(`${where('caseId')}: "caseId" ${JSON.stringify(value.caseId)} is not a case of --cases`);
    if (typeof value.criterionId !== 'string' || !criterionIds.has(value.criterionId)) throw new VerifyInputError(`${where('criterionId')}: "criterionId" ${JSON.stringify(value.criterionId)} is not a criterion of --criteria`);
    if (typeof value.status !== 'string' || !STATUSES.includes(value.status)) throw new VerifyInputError(`${where('status')}: "status" must be one of ${STATUSES.join(', ')}, got ${JSON.stringify(value.status)}`);
    const key = `${caseId}\u0000${value.criterionId}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) throw new VerifyInputError(`${where('caseId')}: case '${caseId}' and criterion '${value.criterionId}' are labelled twice (first on line ${earlier})`);
    seen.set(key, index + 1);
    labels.push({ caseId, criterionId: value.criterionId, status: value.status as LabelInput['status'] });
  }
  if (labels.length === 0) throw new VerifyInputError(`${file}:1:1: no labels: expected one JSON object { "caseId", "criterionId", "status" } per line`);
  return labels;
}

/** The share of `--ab-share`: a fraction from 0 to 1, or a percentage ("10%"). */
export function parseShare(value: string): number {
  const text = value.trim();
  const share = text.endsWith('%') ? Number(text.slice(0, -1)) / 100 : Number(text);
  if (text === '' || !Number.isFinite(share) || share < 0 || share > 1) throw new VerifyInputError(`--ab-share: expected a fraction from 0 to 1 (0.1) or a percentage (10%), got ${JSON.stringify(value)}`);
  return share;
}
