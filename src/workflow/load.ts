import type { Diagnostic } from '../diagnostics/index.js';
import { readFailureDiagnostic } from '../diagnostics/read-failure.js';
import { WorkflowValidationError } from '../errors/index.js';
import { assertMaxBytes, DEFAULT_MAX_BYTES, readTextWithin } from '../limits/index.js';
import { locate, whereIn, type Finding } from './findings.js';
import { normalise } from './normalise.js';
import { parseYamlText, sizeFinding } from './parse.js';
import type { PositionIndex } from './positions.js';
import { checkShape } from './shape.js';
import { salvage } from './salvage.js';
import { checkDefinition } from './validate.js';
import { buildWorkflow, type Workflow } from './workflow.js';
import { defaultRegistry, type Registry } from '../registry/registry.js';

/** What to do about a workflow file that does not exist, as the loaders and the CLI say it. */
export const MISSING_WORKFLOW_HINT = 'check the path, or run `panoptes init` to write a starter workflow';

/** Options of `validateWorkflow`, `parseWorkflow` and `loadWorkflow`. */
export interface WorkflowLoadOptions {
  /** File name or label used in diagnostics. @default the path, for `loadWorkflow` */
  source?: string;
  /**
   * References to undefined states are errors when true; when false they are warnings, as the reference engine
   * silently accepted them (a `never` on a misspelt state then never fires). Everything else stays an error.
   * @default true
   */
  strict?: boolean;
  /** Larger input is refused before it is parsed. @default 1048576 (1 MiB) */
  maxBytes?: number;
  /**
   * Where the constraint types and intervention strategies the workflow names are looked up; the workflow keeps it,
   * and a monitor of it uses it. @default defaultRegistry
   */
  registry?: Registry;
}

/** The outcome of `validateWorkflow`: every diagnostic, and the workflow when there is no error. */
export interface WorkflowValidationResult {
  ok: boolean;
  /** Errors and warnings, in source order when the input was text. */
  diagnostics: Diagnostic[];
  workflow?: Workflow;
}

/**
 * Validates a workflow and reports every problem at once; never throws for bad input.
 * @param input YAML (or JSON) text, or an already-parsed document (then diagnostics have no line and column).
 * @throws {InvalidOptionError} only for a bad `maxBytes`.
 * @example
 * const { ok, diagnostics, workflow } = validateWorkflow(text, { source: 'support.yaml' });
 * if (!ok) for (const diagnostic of diagnostics) console.error(formatDiagnostic(diagnostic));
 */
export function validateWorkflow(input: unknown, { source, strict = true, maxBytes = DEFAULT_MAX_BYTES, registry = defaultRegistry }: WorkflowLoadOptions = {}): WorkflowValidationResult {
  assertMaxBytes(maxBytes);
  let data = input;
  let positions: PositionIndex | undefined;
  const findings: Finding[] = [];
  if (typeof input === 'string') {
    const parsed = parseYamlText(input, maxBytes);
    findings.push(...parsed.findings);
    if (!('data' in parsed)) return result(findings, positions, source);
    data = parsed.data;
    positions = parsed.positions;
  }
  const shape = checkShape(data);
  findings.push(...shape.findings);
  const usable = shape.raw ? { raw: shape.raw, dropped: undefined, indices: {} } : salvage(data, shape.findings);
  if (usable === undefined) return result(findings, positions, source);

  const { definition, paths } = normalise(usable.raw, usable.indices);
  const checked = checkDefinition(definition, { strict, paths, registry, where: whereIn(positions), ...(usable.dropped ? { dropped: usable.dropped } : {}) });
  findings.push(...checked.findings);
  const outcome = result(findings, positions, source);
  if (!outcome.ok || !shape.raw) return outcome;
  const workflow = buildWorkflow(definition, checked.compiled, { diagnostics: outcome.diagnostics, registry, strategyOptions: checked.strategyOptions, ...(positions ? { positions } : {}), ...(source === undefined ? {} : { source }) });
  return { ...outcome, workflow };
}

/**
 * Parses and validates workflow text.
 * @returns the workflow; warnings are on `workflow.diagnostics`.
 * @throws {WorkflowValidationError} listing every error, each with file, line and column.
 * @example
 * const workflow = parseWorkflow(readFileSync('support.yaml', 'utf8'), { source: 'support.yaml' });
 * workflow.successors(workflow.initialState);
 */
export function parseWorkflow(text: string, options: WorkflowLoadOptions = {}): Workflow {
  const { workflow, diagnostics } = validateWorkflow(text, options);
  if (!workflow) throw new WorkflowValidationError(diagnostics);
  return workflow;
}

/**
 * Reads and validates a workflow file. A file over `maxBytes` is refused from its size, without reading it.
 * @throws {WorkflowValidationError} (code `INVALID_WORKFLOW`) when the file cannot be read (one diagnostic, code
 * `file-not-found` or `unreadable-file`, and a one-line message: `nope.yaml: no such file; check the path, ...`) or
 * is invalid.
 * @example
 * const workflow = await loadWorkflow('workflows/support.yaml');
 */
export async function loadWorkflow(path: string, options: WorkflowLoadOptions = {}): Promise<Workflow> {
  const { source = path, maxBytes = DEFAULT_MAX_BYTES } = options;
  assertMaxBytes(maxBytes);
  let text: string;
  try {
    const read = await readTextWithin(path, maxBytes, 'workflow');
    if ('tooLarge' in read) throw new WorkflowValidationError(locate([sizeFinding(read.tooLarge.bytes, maxBytes)!], undefined, source));
    text = read.text;
  } catch (error) {
    if (WorkflowValidationError.isInstance(error)) throw error;
    throw new WorkflowValidationError([readFailureDiagnostic(source, error, MISSING_WORKFLOW_HINT)]);
  }
  return parseWorkflow(text, { ...options, source });
}

function result(findings: readonly Finding[], positions: PositionIndex | undefined, source: string | undefined): WorkflowValidationResult {
  const diagnostics = sortBySource(locate(findings, positions, source));
  return { ok: !diagnostics.some((diagnostic) => diagnostic.severity === 'error'), diagnostics };
}

/** Source order reads best in an editor or terminal; `sort` is stable, so unplaced findings keep their order. */
function sortBySource(diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}
