import { createHash } from 'node:crypto';
import type { Diagnostic } from '../diagnostics/index.js';
import { readFailureDiagnostic } from '../diagnostics/read-failure.js';
import { RubricError } from '../errors/index.js';
import { assertMaxBytes, DEFAULT_MAX_BYTES, readTextWithin } from '../limits/index.js';
import { describeValue, locate, type Finding } from '../workflow/findings.js';
import { parseYamlText, sizeFinding } from '../workflow/parse.js';
import type { Path } from '../workflow/path.js';
import type { PositionIndex } from '../workflow/positions.js';
import { toFindings } from '../workflow/shape.js';
import { rawRubricFileSchema, type RawRubric, type RawRubricFile } from './schema.js';
import { scaleRange, type Criterion, type CriterionScale, type Rubric } from './rubric.js';

/** What to do about a rubric file that does not exist. */
export const MISSING_RUBRIC_HINT = 'check the path of the rubric file';

/** The id of the rubric the `policy:` shorthand becomes. */
export const POLICY_RUBRIC_ID = 'policy';

/** Options of `validateRubrics`, `parseRubrics` and `loadRubrics`. */
export interface RubricLoadOptions {
  /** File name or label used in diagnostics. @default the path, for `loadRubrics` */
  source?: string;
  /** Larger input is refused before it is parsed. @default 1048576 (1 MiB) */
  maxBytes?: number;
}

/** The outcome of `validateRubrics`: every diagnostic, and the rubrics when there is no error. */
export interface RubricValidationResult {
  ok: boolean;
  diagnostics: Diagnostic[];
  rubrics?: Rubric[];
}

/**
 * Validates a rubric file and reports every problem at once, each placed on its line and column; never throws for
 * bad input.
 * @param input YAML (or JSON) text, or an already-parsed document (then diagnostics have no line and column).
 * @throws {InvalidOptionError} only for a bad `maxBytes`.
 * @example
 * const { ok, diagnostics, rubrics } = validateRubrics(text, { source: 'support.rubrics.yaml' });
 */
export function validateRubrics(input: unknown, { source, maxBytes = DEFAULT_MAX_BYTES }: RubricLoadOptions = {}): RubricValidationResult {
  assertMaxBytes(maxBytes);
  let data = input;
  let positions: PositionIndex | undefined;
  const findings: Finding[] = [];
  if (typeof input === 'string') {
    const parsed = parseYamlText(input, maxBytes, 'rubric file');
    findings.push(...parsed.findings);
    if (!('data' in parsed)) return result(findings, positions, source);
    data = parsed.data;
    positions = parsed.positions;
  }
  const documentProblem = checkDocument(data);
  if (documentProblem) return result([...findings, documentProblem], positions, source);
  const shape = rawRubricFileSchema.safeParse(data, { reportInput: true });
  if (!shape.success) return result([...findings, ...shape.error.issues.flatMap((issue) => toFindings(issue, []))], positions, source);
  findings.push(...checkRubricFile(shape.data));
  const outcome = result(findings, positions, source);
  if (!outcome.ok) return outcome;
  const place = (path: Path) => {
    const position = positions?.find(path, 'value');
    return source === undefined ? undefined : position ? `${source}:${position.line}` : source;
  };
  return { ...outcome, rubrics: buildRubrics(shape.data, place) };
}

/**
 * Parses and validates rubric text.
 * @throws {RubricError} listing every error, each with file, line and column.
 * @example
 * const rubrics = parseRubrics('policy:\n  - Never promise a refund amount.\n', { source: 'inline' });
 */
export function parseRubrics(text: string, options: RubricLoadOptions = {}): Rubric[] {
  const { rubrics, diagnostics } = validateRubrics(text, options);
  if (!rubrics) throw new RubricError(diagnostics);
  return rubrics;
}

/**
 * Reads and validates a rubric file.
 * @throws {RubricError} (code `INVALID_RUBRIC`) when the file cannot be read or is invalid.
 * @example
 * const rubrics = await loadRubrics('panoptes/support.rubrics.yaml');
 */
export async function loadRubrics(path: string, options: RubricLoadOptions = {}): Promise<Rubric[]> {
  const { source = path, maxBytes = DEFAULT_MAX_BYTES } = options;
  assertMaxBytes(maxBytes);
  let text: string;
  try {
    const read = await readTextWithin(path, maxBytes, 'rubric file');
    if ('tooLarge' in read) throw new RubricError(locate([sizeFinding(read.tooLarge.bytes, maxBytes, 'rubric file')!], undefined, source));
    text = read.text;
  } catch (error) {
    if (RubricError.isInstance(error)) throw error;
    throw new RubricError([readFailureDiagnostic(source, error, MISSING_RUBRIC_HINT)]);
  }
  return parseRubrics(text, { ...options, source });
}

/** Whether a parsed YAML document looks like a rubric file rather than a workflow: it has `rubrics` or `policy`. */
export function isRubricDocument(data: unknown): boolean {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return false;
  return ('rubrics' in data || 'policy' in data) && !('states' in data);
}

function checkDocument(data: unknown): Finding | undefined {
  const hint = 'a rubric file has `rubrics:` (a list of rubrics) or `policy:` (a list of plain-English rules)';
  if (data === null || data === undefined) return { severity: 'error', code: 'empty-document', message: 'the document is empty', path: [], hint };
  if (typeof data !== 'object' || Array.isArray(data)) return { severity: 'error', code: 'not-a-mapping', message: `a rubric file must be a mapping, got ${describeValue(data)}`, path: [], hint };
  if (!('rubrics' in data) && !('policy' in data)) return { severity: 'error', code: 'no-rubrics', message: 'the file has neither `rubrics` nor `policy`', path: [], hint };
  return undefined;
}

/** Checks the shape cannot express: ids unique, scores within their scales, keys that only fit some scopes. */
function checkRubricFile(file: RawRubricFile): Finding[] {
  const findings: Finding[] = [];
  const error = (path: Path, code: string, message: string, hint?: string, at: 'key' | 'value' = 'value') =>
    findings.push({ severity: 'error', code, message, path, at, ...(hint ? { hint } : {}) });
  const seen = new Map<string, number>();
  const policyId = file.policy === undefined ? undefined : Array.isArray(file.policy) ? POLICY_RUBRIC_ID : (file.policy.id ?? POLICY_RUBRIC_ID);
  if (policyId !== undefined) seen.set(policyId, -1);
  (file.rubrics ?? []).forEach((rubric, index) => {
    const path = ['rubrics', index];
    const first = seen.get(rubric.id);
    if (first !== undefined) error([...path, 'id'], 'duplicate-rubric', `rubric id '${rubric.id}' is used twice`, first < 0 ? 'the `policy:` shorthand is a rubric of that id; rename one' : `first at rubrics[${first}]; rename one`);
    else seen.set(rubric.id, index);
    if (rubric.every_turns !== undefined && rubric.scope !== 'conversation') {
      error([...path, 'every_turns'], 'scope-mismatch', `every_turns applies to conversation scope, not ${rubric.scope}`, 'remove every_turns, or set scope: conversation', 'key');
    }
    if (rubric.tool_results !== undefined && rubric.scope !== 'tool_call') {
      error([...path, 'tool_results'], 'scope-mismatch', `tool_results applies to tool_call scope, not ${rubric.scope}`, 'remove tool_results, or set scope: tool_call', 'key');
    }
    if (rubric.applies_to?.tools !== undefined && rubric.scope !== 'tool_call') {
      error([...path, 'applies_to', 'tools'], 'scope-mismatch', `applies_to.tools applies to tool_call scope, not ${rubric.scope}`, 'remove tools, or set scope: tool_call', 'key');
    }
    const criteria = new Map<string, number>();
    rubric.criteria.forEach((criterion, position) => {
      const criterionPath = [...path, 'criteria', position];
      const earlier = criteria.get(criterion.id);
      if (earlier !== undefined) error([...criterionPath, 'id'], 'duplicate-criterion', `criterion id '${criterion.id}' is used twice in rubric '${rubric.id}'`, `first at criteria[${earlier}]; rename one`);
      else criteria.set(criterion.id, position);
      const scale = criterion.scale as CriterionScale;
      const { min, max } = scaleRange(scale);
      if (criterion.fail_below !== undefined && !(criterion.fail_below > min && criterion.fail_below <= max)) {
        error([...criterionPath, 'fail_below'], 'out-of-scale', `fail_below ${criterion.fail_below} is outside the ${scale} scale`, `write a score in (${min}, ${max}]: a score below it fails the rubric`);
      }
      for (const key of Object.keys(criterion.anchors ?? {})) {
        const score = Number(key);
        if (!Number.isInteger(score) || score < min || score > max) {
          error([...criterionPath, 'anchors', key], 'out-of-scale', `anchor '${key}' is not a score of the ${scale} scale`, `anchors are whole scores from ${min} to ${max}`, 'key');
        }
      }
    });
  });
  return findings;
}

function buildRubrics(file: RawRubricFile, place: (path: Path) => string | undefined): Rubric[] {
  const fileVersion = file.version === undefined ? undefined : String(file.version);
  const rubrics = (file.rubrics ?? []).map((raw, index) => buildRubric(raw, fileVersion, place(['rubrics', index])));
  if (file.policy !== undefined) rubrics.unshift(policyRubric(file.policy, fileVersion, place(['policy'])));
  return rubrics;
}

function buildRubric(raw: RawRubric, fileVersion: string | undefined, source: string | undefined): Rubric {
  const criteria = raw.criteria.map(
    (criterion): Criterion => ({
      id: criterion.id,
      description: criterion.description,
      scale: criterion.scale as CriterionScale,
      weight: criterion.weight,
      ...(criterion.fail_below === undefined ? {} : { failBelow: criterion.fail_below }),
      ...(criterion.anchors ? { anchors: Object.fromEntries(Object.entries(criterion.anchors).map(([score, text]) => [Number(score), text])) } : {}),
    }),
  );
  const rubric: Omit<Rubric, 'version'> = {
    id: raw.id,
    description: raw.description,
    scope: raw.scope,
    appliesTo: { ...(raw.applies_to?.tools ? { tools: raw.applies_to.tools } : {}), ...(raw.applies_to?.states ? { states: raw.applies_to.states } : {}), ...(raw.applies_to?.rules ? { rules: raw.applies_to.rules } : {}) },
    criteria,
    passAt: raw.pass_at,
    onFail: raw.on_fail,
    onError: raw.on_error,
    sample: raw.sample ?? 1,
    everyTurns: raw.every_turns ?? 1,
    ...(raw.tool_results === undefined ? {} : { toolResults: raw.tool_results }),
    ...(source === undefined ? {} : { source }),
  };
  const version = raw.version === undefined ? (fileVersion ?? contentVersion(rubric)) : String(raw.version);
  return { ...rubric, version };
}

function policyRubric(policy: NonNullable<RawRubricFile['policy']>, fileVersion: string | undefined, source: string | undefined): Rubric {
  type PolicyObject = Exclude<typeof policy, string[]>;
  const options: Partial<PolicyObject> & { rules: string[] } = Array.isArray(policy) ? { rules: policy } : policy;
  return buildRubric(
    {
      id: options.id ?? POLICY_RUBRIC_ID,
      description: 'The response follows every rule of the policy.',
      scope: options.scope ?? 'turn',
      ...(options.applies_to ? { applies_to: options.applies_to } : {}),
      criteria: options.rules.map((rule, index) => ({ id: `rule_${index + 1}`, description: rule, scale: 'binary', weight: 1 })),
      pass_at: 1,
      on_fail: options.on_fail ?? 'block',
      // The bare list says nothing about errors: a judge that cannot answer asks the user rather than guess.
      on_error: options.on_error ?? 'ask',
    },
    fileVersion,
    source,
  );
}

/** A short hash of what the judge is shown, so a cache or cassette never answers for a rubric's old wording. */
export function contentVersion(rubric: Omit<Rubric, 'version' | 'source'> & { source?: string }): string {
  const { source: _source, ...content } = rubric;
  return createHash('sha256').update(JSON.stringify(content)).digest('hex').slice(0, 12);
}

function result(findings: readonly Finding[], positions: PositionIndex | undefined, source: string | undefined): RubricValidationResult {
  const diagnostics = locate(findings, positions, source).sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  return { ok: !diagnostics.some((diagnostic) => diagnostic.severity === 'error'), diagnostics };
}
