import { DEFAULT_MAX_BYTES, readTextWithin } from '../../limits/index.js';
import { readFailureDiagnostic } from '../../diagnostics/read-failure.js';
import { MISSING_WORKFLOW_HINT } from '../../workflow/load.js';
import { findWorkflowCounterexamples, lintWorkflow, validateWorkflow, type Workflow } from '../../workflow/index.js';
import { parse as parseYaml } from 'yaml';
import { isRubricDocument, MISSING_RUBRIC_HINT, validateRubrics, type Rubric } from '../../judge/index.js';
import { plural, printFileReports, type FileReport, type Output } from '../output.js';
import { registryFromModules } from '../extension-modules.js';
import type { Registry } from '../../registry/index.js';

export interface ValidateCommandOptions {
  json?: boolean;
  /** `--no-strict`: unknown states become warnings, as the reference engine accepted them. */
  strict?: boolean;
  /** `--strict-paths`: a constraint the transitions let an agent break is an error, not a warning. */
  strictPaths?: boolean;
  /** `--module <file>`: modules whose constraint types, strategies and tiers the workflows may name. */
  module?: string[];
}

/** One checked workflow file, as `validate` reports it. */
export interface WorkflowFileReport extends FileReport {
  workflow?: { name: string; version: string; states: number; transitions: number; constraints: number };
  /** Set instead of `workflow` for a rubric file: its rubrics' ids and scopes. */
  rubrics?: Array<{ id: string; scope: Rubric['scope']; criteria: number }>;
}

/**
 * `panoptes validate <file...>`: checks each workflow file and lints the valid ones; a rubric file (one with
 * `rubrics:` or `policy:`, or named `*.rubrics.yaml`) is checked as one.
 * @returns the exit code: 0 when every file is valid (warnings allowed), 1 when any has errors.
 */
export async function validateCommand(files: string[], { json = false, strict = true, strictPaths = false, module: modules = [] }: ValidateCommandOptions, output: Output): Promise<number> {
  const extensions = await registryFromModules(modules);
  if ('failure' in extensions) return printFileReports([{ file: extensions.failure.source!, ok: false, diagnostics: [extensions.failure] }], json, output);
  const { registry } = extensions;
  const reports = await Promise.all(
    files.map(async (file): Promise<WorkflowFileReport> => {
      const rubricReport = await checkRubricFileIfOne(file);
      if (rubricReport) return rubricReport;
      const { report, workflow } = await checkWorkflowFile(file, strict, registry);
      if (!workflow) return report;
      // Counterexamples only for `validate`: other commands load the workflow to run it, not to review it.
      const { diagnostics } = findWorkflowCounterexamples(workflow, { strict: strictPaths });
      return { ...report, ok: report.ok && !diagnostics.some((diagnostic) => diagnostic.severity === 'error'), diagnostics: [...report.diagnostics, ...diagnostics] };
    }),
  );
  return printFileReports(reports, json, output, describeWorkflow);
}

/** What `validate` prints after a file's name: `support 1.0: 6 states, 9 transitions, 4 constraints`. */
export function describeWorkflow({ workflow, rubrics }: WorkflowFileReport): string {
  if (rubrics) return `${plural(rubrics.length, 'rubric')}: ${rubrics.map((rubric) => `${rubric.id} (${rubric.scope}, ${plural(rubric.criteria, 'criterion').replace(/criterions$/, 'criteria')})`).join(', ')}`;
  return workflow
    ? `${workflow.name} ${workflow.version}: ${plural(workflow.states, 'state')}, ${plural(workflow.transitions, 'transition')}, ${plural(workflow.constraints, 'constraint')}`
    : '';
}

/**
 * Reads, validates and lints one workflow file, as `validate` does; never throws for a bad file.
 * @returns the file's report, and the workflow when it loaded (with `strict: false`, despite unknown-state warnings).
 */
export async function checkWorkflowFile(file: string, strict: boolean, registry?: Registry): Promise<{ report: WorkflowFileReport; workflow?: Workflow }> {
  let text: string;
  try {
    // The size is checked from the file system first, so a 10 GB file is refused without being read.
    const read = await readTextWithin(file, DEFAULT_MAX_BYTES, 'workflow');
    if ('tooLarge' in read) return { report: { file, ok: false, diagnostics: [{ severity: 'error', code: 'input-too-large', message: `${read.tooLarge.message}.`, hint: read.tooLarge.hint, path: '', source: file }] } };
    text = read.text;
  } catch (error) {
    return { report: { file, ok: false, diagnostics: [readFailureDiagnostic(file, error, MISSING_WORKFLOW_HINT)] } };
  }
  const result = validateWorkflow(text, { source: file, strict, ...(registry ? { registry } : {}) });
  if (!result.workflow) return { report: { file, ok: false, diagnostics: result.diagnostics } };
  const { definition } = result.workflow;
  const report = {
    file,
    ok: result.ok,
    workflow: {
      name: definition.name,
      version: definition.version,
      states: definition.states.length,
      transitions: definition.transitions.length,
      constraints: definition.constraints.length,
    },
    diagnostics: [...result.diagnostics, ...lintWorkflow(result.workflow)],
  };
  return { report, workflow: result.workflow };
}

/** A rubric file's report, or nothing when the file is not a rubric file (then it is checked as a workflow). */
async function checkRubricFileIfOne(file: string): Promise<WorkflowFileReport | undefined> {
  let text: string;
  try {
    const read = await readTextWithin(file, DEFAULT_MAX_BYTES, 'rubric file');
    if ('tooLarge' in read) return undefined; // the workflow check reports it
    text = read.text;
  } catch (error) {
    if (!/\.rubrics?\.ya?ml$/.test(file)) return undefined;
    return { file, ok: false, diagnostics: [readFailureDiagnostic(file, error, MISSING_RUBRIC_HINT)] };
  }
  if (!/\.rubrics?\.ya?ml$/.test(file) && !looksLikeRubrics(text)) return undefined;
  const result = validateRubrics(text, { source: file });
  return {
    file,
    ok: result.ok,
    diagnostics: result.diagnostics,
    ...(result.rubrics ? { rubrics: result.rubrics.map((rubric) => ({ id: rubric.id, scope: rubric.scope, criteria: rubric.criteria.length })) } : {}),
  };
}

function looksLikeRubrics(text: string): boolean {
  try {
    return isRubricDocument(parseYaml(text, { maxAliasCount: 100 }));
  } catch {
    return false; // not YAML at all: the workflow check says why
  }
}
