import type { Timers } from '../clock/index.js';
import type { Diagnostic } from '../diagnostics/index.js';
import { InvalidOptionError } from '../errors/index.js';
import type { ToolSpec } from '../rules/index.js';
import { validateWorkflow, type Workflow } from '../workflow/index.js';
import { workflowDraftSchema, type WorkflowDraft } from './draft.js';
import type { CompilerMessage, CompilerModel, TokenUsage } from './model.js';
import { initialMessages, WORKFLOW_SYSTEM_PROMPT } from './prompt.js';
import { normalisePolicy, quoteOccurs } from './quotes.js';
import { renderWorkflowYaml, type SourceFlag } from './render-workflow.js';
import { repairLoop, type CompileRound } from './repair.js';

/** Default of `maxRepairs`: rounds in which validation errors go back to the model. */
export const DEFAULT_MAX_REPAIRS = 3;
/** Default budget of one model call, in milliseconds. */
export const DEFAULT_COMPILE_TIMEOUT_MS = 120_000;

/** Options of {@link compileWorkflow}. */
export interface CompileWorkflowOptions {
  model: CompilerModel;
  /** The agent's tools (names, or OpenAI-style `{ name, parameters }`): named in the prompt; a state that classifies by any other tool is an error. */
  tools?: readonly ToolSpec[];
  /** Rounds in which the draft's errors go back to the model. @default 3 */
  maxRepairs?: number;
  /** Budget of one model call, in milliseconds. @default 120000 */
  timeoutMs?: number;
  /** Label of the output in diagnostics. @default 'workflow.yaml' */
  source?: string;
  /** Comment lines at the top of the file (the policy's file name, the model). */
  header?: readonly string[];
  /** Called after each round, for progress. */
  onRound?: (round: CompileRound & { ok: boolean }) => void;
  /** Timer functions for the budget, replaceable in tests. */
  timers?: Timers;
}

/** What the compiler produced. */
export interface CompiledWorkflow {
  /** The workflow file, commented, ready to write. */
  yaml: string;
  workflow: Workflow;
  /** Every round's diagnostics (errors sent back, warnings kept) and usage. */
  rounds: CompileRound[];
  /** The last round's diagnostics: warnings, including `source-not-in-policy` for each quote the policy does not hold. */
  diagnostics: Diagnostic[];
  /** Items whose `source` is not a quote of the policy. */
  unquoted: SourceFlag[];
  usage: TokenUsage;
  /** The conversation's first messages, to keep beside the output (what exactly the model was told). */
  prompt: CompilerMessage[];
}

/**
 * Drafts a workflow from a written policy with a model, validates it as Panoptes loads workflows, and sends the
 * positioned errors back for repair, at most `maxRepairs` times (DESIGN.md section 18). Every state, transition,
 * constraint and intervention carries `source:`, a quote of the policy; quotes the policy does not hold are flagged
 * (a `# CHECK` comment and a `source-not-in-policy` warning), not repaired: a reviewer decides.
 * @throws {CompileError} when the last round is still invalid (with its diagnostics), or a model call fails.
 * @throws {InvalidOptionError} for an empty policy, a missing model or a bad `maxRepairs`.
 * @example
 * const { yaml, usage } = await compileWorkflow(await readFile('policy.md', 'utf8'), { model: compilerModel(chatModel) });
 * await writeFile('workflow.yaml', yaml);
 */
export async function compileWorkflow(policyText: string, options: CompileWorkflowOptions): Promise<CompiledWorkflow> {
  const { model, tools, maxRepairs = DEFAULT_MAX_REPAIRS, timeoutMs = DEFAULT_COMPILE_TIMEOUT_MS, source = 'workflow.yaml', header = [], onRound, timers } = options;
  assertCompileOptions(policyText, model, maxRepairs);
  const policy = normalisePolicy(policyText);
  const toolNames = tools ? new Set(tools.map((tool) => (typeof tool === 'string' ? tool : tool.name))) : undefined;
  const prompt = initialMessages(WORKFLOW_SYSTEM_PROMPT, policyText, tools);
  const { result, text, rounds, usage } = await repairLoop({
    model,
    schema: workflowDraftSchema,
    messages: prompt,
    maxRepairs,
    timeoutMs,
    ...(timers ? { timers } : {}),
    ...(onRound ? { onRound } : {}),
    what: 'workflow',
    check: (draft: WorkflowDraft) => {
      const unquoted = unquotedItems(draft, (quote) => quoteOccurs(quote, policy));
      const yaml = renderWorkflowYaml(draft, { flagged: unquoted, header });
      const validated = validateWorkflow(yaml, { source });
      const diagnostics = [...validated.diagnostics, ...unknownTools(draft, toolNames, validated.workflow), ...quoteWarnings(unquoted, validated.workflow, source)];
      const ok = validated.workflow !== undefined && !diagnostics.some((diagnostic) => diagnostic.severity === 'error');
      return { text: yaml, diagnostics, ...(ok ? { result: { workflow: validated.workflow!, unquoted, diagnostics } } : {}) };
    },
  });
  return { yaml: text, workflow: result.workflow, rounds, diagnostics: result.diagnostics, unquoted: result.unquoted, usage, prompt };
}

/** Checks what every compile needs before the first model call. */
export function assertCompileOptions(policyText: string, model: unknown, maxRepairs: number): void {
  if (typeof policyText !== 'string' || policyText.trim() === '') throw new InvalidOptionError({ parameter: 'policyText', value: policyText, fix: 'Pass the policy as non-empty text.' });
  if (typeof model !== 'function') throw new InvalidOptionError({ parameter: 'model', value: model, fix: 'Pass a function (messages, jsonSchema) => Promise<object>, e.g. compilerModel(chatModel) from panoptes/langchain.' });
  if (!Number.isInteger(maxRepairs) || maxRepairs < 0) throw new InvalidOptionError({ parameter: 'maxRepairs', value: maxRepairs, fix: 'Pass a whole number >= 0; the default is 3.' });
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
