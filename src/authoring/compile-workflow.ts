import type { Diagnostic } from '../diagnostics/index.js';
import type { ToolSpec } from '../rules/index.js';
import { validateWorkflow, type Workflow } from '../workflow/index.js';
import { compileDraft, type CompileOptions, type CompileOutcome } from './compile-draft.js';
import { workflowDraftSchema, type WorkflowDraft } from './draft.js';
import { WORKFLOW_SYSTEM_PROMPT } from './prompt.js';
import { quoteOccurs } from './quotes.js';
import { renderWorkflowYaml, type SourceFlag } from './render-workflow.js';

/** Options of {@link compileWorkflow}. `source` defaults to `'workflow.yaml'`. */
export interface CompileWorkflowOptions extends CompileOptions {
  /** The agent's tools (names, or OpenAI-style `{ name, parameters }`): named in the prompt; a state that classifies by any other tool is an error. */
  tools?: readonly ToolSpec[];
  /**
   * The editor's `$schema` reference on the file's first line, relative to where the file is written.
   * @default './node_modules/panoptes/workflow.schema.json' (a file at the project's root)
   */
  schema?: string;
}

/** What the compiler produced. */
export interface CompiledWorkflow extends CompileOutcome {
  /** The workflow file, commented, ready to write. */
  yaml: string;
  workflow: Workflow;
  /** Items whose `source` is not a quote of the policy. */
  unquoted: SourceFlag[];
}

/**
 * Drafts a workflow from a written policy with a model, validates it as Panoptes loads workflows, and sends the
 * positioned errors back for repair, at most `maxRepairs` times. Every state, transition,
 * constraint and intervention carries `source:`, a quote of the policy; quotes the policy does not hold are flagged
 * (a `# CHECK` comment and a `source-not-in-policy` warning), not repaired: a reviewer decides.
 * @throws {CompileError} when the last round is still invalid (with its diagnostics), or a model call fails.
 * @throws {InvalidOptionError} for an empty policy, a missing model or a bad `maxRepairs`.
 * @example
 * const { yaml, usage } = await compileWorkflow(await readFile('policy.md', 'utf8'), { model: compilerModel(chatModel) });
 * await writeFile('workflow.yaml', yaml);
 */
export async function compileWorkflow(policyText: string, options: CompileWorkflowOptions): Promise<CompiledWorkflow> {
  const { tools, source = 'workflow.yaml', header = [], schema } = options;
  const toolNames = tools ? new Set(tools.map((tool) => (typeof tool === 'string' ? tool : tool.name))) : undefined;
  const { result, text, rounds, usage, prompt } = await compileDraft(policyText, options, {
    what: 'workflow',
    systemPrompt: WORKFLOW_SYSTEM_PROMPT,
    schema: workflowDraftSchema,
    tools,
    check: (draft: WorkflowDraft, policy) => {
      const unquoted = unquotedItems(draft, (quote) => quoteOccurs(quote, policy));
      const yaml = renderWorkflowYaml(draft, { flagged: unquoted, header, ...(schema === undefined ? {} : { schema }) });
      const validated = validateWorkflow(yaml, { source });
      const diagnostics = [...validated.diagnostics, ...unknownTools(draft, toolNames, validated.workflow), ...quoteWarnings(unquoted, validated.workflow, source)];
      const ok = validated.workflow !== undefined && !diagnostics.some((diagnostic) => diagnostic.severity === 'error');
      return { text: yaml, diagnostics, ...(ok ? { result: { workflow: validated.workflow!, unquoted, diagnostics } } : {}) };
    },
  });
  return { yaml: text, workflow: result.workflow, rounds, diagnostics: result.diagnostics, unquoted: result.unquoted, usage, prompt };
}

function unquotedItems(draft: WorkflowDraft, occurs: (quote: string) => boolean): SourceFlag[] {
  const flags: SourceFlag[] = [];
  draft.states.forEach((item, index) => occurs(item.source) || flags.push({ path: `states[${index}]`, source: item.source }));
  draft.transitions.forEach((item, index) => occurs(item.source) || flags.push({ path: `transitions[${index}]`, source: item.source }));
  draft.constraints.forEach((item, index) => occurs(item.source) || flags.push({ path: `constraints[${index}]`, source: item.source }));
  draft.interventions.forEach((item) => occurs(item.source) || flags.push({ path: `interventions.${item.name}`, source: item.source }));
  return flags;
}

function quoteWarnings(flags: readonly SourceFlag[], workflow: Workflow | undefined, source: string): Diagnostic[] {
  return flags.map(({ path, source: quote }) => ({
    severity: 'warning',
    code: 'source-not-in-policy',
    path: `${path}.source`,
    message: `the source ${JSON.stringify(quote.length > 80 ? `${quote.slice(0, 77)}...` : quote)} is not a quote of the policy`,
    hint: 'check this item against the policy by hand',
    source,
    ...(workflow?.positionOf(path) ?? {}),
  }));
}

function unknownTools(draft: WorkflowDraft, known: ReadonlySet<string> | undefined, workflow: Workflow | undefined): Diagnostic[] {
  if (!known) return [];
  return draft.states.flatMap((state, index) =>
    (state.tool_calls ?? [])
      .filter((tool) => !known.has(tool))
      .map((tool) => ({
        severity: 'error' as const,
        code: 'unknown-tool',
        path: `states[${index}].classification.tool_calls`,
        message: `state '${state.name}' is classified by tool '${tool}', which the agent does not have`,
        hint: `the agent's tools: ${[...known].join(', ')}`,
        ...(workflow?.positionOf(`states[${index}]`) ?? {}),
      })),
  );
}
