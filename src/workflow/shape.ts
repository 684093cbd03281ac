import type * as z from 'zod';
import { didYouMean } from '../diagnostics/index.js';
import { describeValue, type Finding } from './findings.js';
import type { Path } from './path.js';
import { rawWorkflowSchema, type RawWorkflow } from './schema.js';

/** The result of checking a document's shape: the parsed document when valid, and a finding per problem. */
export interface ShapeResult {
  raw?: RawWorkflow;
  findings: Finding[];
}

/**
 * Checks a document against the raw schema and turns each zod issue into a finding that names the field, the bad
 * value and what would be accepted.
 */
export function checkShape(data: unknown): ShapeResult {
  if (data === null || data === undefined) {
    return { findings: [{ severity: 'error', code: 'empty-document', message: 'the document is empty', path: [], hint: 'a workflow needs at least `name` and `states`' }] };
  }
  if (typeof data !== 'object' || Array.isArray(data)) {
    return {
      findings: [
        {
          severity: 'error',
          code: 'not-a-mapping',
          message: `a workflow document must be a mapping, got ${describeValue(data)}`,
          path: [],
          hint: 'start the file with keys such as `name:` and `states:`',
        },
      ],
    };
  }
  const result = rawWorkflowSchema.safeParse(data, { reportInput: true });
  if (result.success) return { raw: result.data, findings: [] };
  return { findings: result.error.issues.flatMap((issue) => toFindings(issue, [])) };
}

/**
 * One zod issue as findings that name the field, the bad value and what would be accepted; shared by every YAML
 * loader that checks its shape with zod (workflows, rubric files).
 */
export function toFindings(issue: z.core.$ZodIssue, prefix: Path): Finding[] {
  const path = [...prefix, ...(issue.path as (string | number)[])];
  const finding = (code: string, message: string, hint?: string): Finding[] => [
    { severity: 'error', code, message, path, ...(hint ? { hint } : {}) },
  ];
  switch (issue.code) {
    case 'custom': {
      const params = (issue.params ?? {}) as { code?: string; at?: 'key'; hint?: string };
      return [{ severity: 'error', code: params.code ?? 'invalid-value', message: issue.message, path, ...(params.at ? { at: params.at } : {}), ...(params.hint ? { hint: params.hint } : {}) }];
    }
    case 'invalid_union':
      return unionFindings(issue, path);
    case 'invalid_type':
      if (issue.input === undefined && !('received' in issue)) return finding('missing-key', `missing required key '${String(path.at(-1))}'`, `expected ${expectedText(issue.expected)}`);
      return finding('invalid-type', `expected ${expectedText(issue.expected)}, got ${receivedText(issue)}`, booleanHint(issue));
    case 'invalid_value':
      // zod reports a missing enumerated key as a bad value `undefined`: say what is missing instead.
      if (issue.input === undefined) return finding('missing-key', `missing required key '${String(path.at(-1))}'`, `expected one of: ${issue.values.map(String).join(', ')}`);
      return enumFindings(issue, path);
    case 'too_small':
    case 'too_big':
      return finding(issue.origin === 'array' ? 'empty-list' : 'out-of-range', rangeText(issue));
    default:
      return finding('invalid-value', `${issue.message}, got ${describeValue(issue.input)}`);
  }
}

/**
 * A union fails with one list of issues per branch. The branch whose type matched the value explains the mistake
 * best (an object with an unknown key is better told about the key than that it is not a string), so report that
 * one; when no branch matched the type, say which types would do.
 */
function unionFindings(issue: z.core.$ZodIssueInvalidUnion, path: Path): Finding[] {
  const typeMismatch = (branch: readonly z.core.$ZodIssue[]) => branch.some((inner) => inner.code === 'invalid_type' && inner.path.length === 0);
  const matched = issue.errors.find((branch) => !typeMismatch(branch));
  if (matched) return matched.flatMap((inner) => toFindings(inner, path));
  const expected = issue.errors.flatMap((branch) => branch.filter((inner) => inner.code === 'invalid_type').map((inner) => expectedText((inner as z.core.$ZodIssueInvalidType).expected)));
  const hint = expected.length > 0 ? `expected ${[...new Set(expected)].join(' or ')}` : undefined;
  return [{ severity: 'error', code: 'invalid-type', message: `unexpected value ${describeValue(issue.input)}`, path, ...(hint ? { hint } : {}) }];
}

/** Enumerations with a code of their own, so tools can tell a misspelt constraint type from any other bad value. */
const ENUM_CODES: Record<string, string> = { type: 'unknown-constraint-type', severity: 'invalid-severity' };

function enumFindings(issue: z.core.$ZodIssueInvalidValue, path: Path): Finding[] {
  const allowed = issue.values.map(String);
  const field = path.at(-1);
  const code = (path[0] === 'constraints' && typeof field === 'string' && ENUM_CODES[field]) || 'invalid-value';
  const what = code === 'unknown-constraint-type' ? 'unknown constraint type' : `invalid ${String(field)}`;
  const suggestion = typeof issue.input === 'string' ? didYouMean(issue.input, allowed) : '';
  const hint = `expected one of: ${allowed.join(', ')}${suggestion ? `; ${suggestion}` : ''}`;
  return [{ severity: 'error', code, message: `${what} ${describeValue(issue.input)}`, path, hint }];
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
};

function expectedText(expected: string): string {
  return TYPE_NAMES[expected] ?? expected;
}

function receivedText(issue: z.core.$ZodIssueInvalidType): string {
  const received = (issue as { received?: unknown }).received;
  return typeof received === 'string' ? received : describeValue(issue.input);
}

/** YAML 1.1 (and the reference engine's PyYAML) reads `yes`/`no`/`on`/`off` as booleans; YAML 1.2 reads text. */
function booleanHint(issue: z.core.$ZodIssueInvalidType): string | undefined {
  if (issue.expected !== 'boolean' || typeof issue.input !== 'string') return undefined;
  return /^(yes|no|on|off|y|n)$/i.test(issue.input) ? `YAML 1.2 reads '${issue.input}' as text; write true or false` : undefined;
}

function rangeText(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string {
  if (issue.origin === 'array') return 'the list is empty; it needs at least one item';
  if (issue.origin === 'string') return 'the text is empty';
  const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
  const relation = issue.code === 'too_small' ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
  return `expected a number ${relation} ${String(bound)}, got ${describeValue(issue.input)}`;
}
