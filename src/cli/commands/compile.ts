import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { compileRubrics, compileRulebase, compileWorkflow, CompileError, type CompileRound, type CompilerMessage, type CompilerModel } from '../../authoring/index.js';
import { formatDiagnostic } from '../../diagnostics/index.js';
import { readFailureDiagnostic, readFailureLine } from '../../diagnostics/read-failure.js';
import { PanoptesError } from '../../errors/index.js';
import type { ToolSpec } from '../../rules/index.js';
import { initLangChainChatModel } from '../langchain-model.js';
import type { Output } from '../output.js';
import { schemaReference } from '../schema-reference.js';
import { writeErrorReason, writeFileAtomic } from '../write-file-atomic.js';

export interface CompileCommandOptions {
  /** `provider:name` for LangChain's `initChatModel`. @default 'openai:gpt-4o-mini' */
  model?: string;
  /** A JSON file with the model's answers, in order: a scripted compile, for tests and reproducible examples. */
  scripted?: string;
  /** JSON list of the agent's tools (names or OpenAI tool definitions). */
  tools?: string;
  /** Draft judged rubrics (a rubric file) instead of a workflow. */
  judge?: boolean;
  /** Where the workflow (with `judge`, the rubric file) goes; stdout without it. */
  out?: string;
  /** With --tools: also compile a rulebase, written here. */
  rulesOut?: string;
  /** Write the conversation sent to the model (prompt, drafts, repairs) here, as JSON. */
  savePrompt?: string;
  maxRepairs?: number;
}

/**
 * `panoptes compile <policy>`: drafts a workflow (and with `--rules-out`, a rulebase; with `--judge`, a rubric file
 * instead) from a written policy with a model, validates it and repairs it against the diagnostics, printing progress
 * per round on stderr.
 * @returns 0 when the output is valid and written, 1 when the model's draft stayed invalid or a call failed, 2 when
 * an input cannot be read or the model cannot be loaded.
 */
export async function compileCommand(policyFile: string, options: CompileCommandOptions, output: Output): Promise<number> {
  let policy: string;
  let tools: ToolSpec[] | undefined;
  let model: CompilerModel & { conversations?: CompilerMessage[][] };
  if (options.judge && options.rulesOut !== undefined) {
    output.err('--judge drafts a rubric file in place of the workflow; compile the rules in a run without --judge');
    return 2;
  }
  try {
    policy = await readInput(policyFile, 'check the path of the policy (a text or Markdown file)');
    tools = options.tools === undefined ? undefined : readTools(await readJson(options.tools, 'check the --tools path'), options.tools);
    model = options.scripted === undefined ? await langChainModel(options.model ?? 'openai:gpt-4o-mini') : scriptedModel(await readJson(options.scripted, 'check the --scripted path'), options.scripted);
  } catch (error) {
    output.err((error as Error).message);
    return 2;
  }
  const conversations: CompilerMessage[][] = [];
  const recorded: CompilerModel = async (messages, schema) => {
    conversations.push(messages.map((message) => ({ ...message })));
    return model(messages, schema);
  };
  const label = options.scripted === undefined ? (options.model ?? 'openai:gpt-4o-mini') : `scripted (${basename(options.scripted)})`;
  const header = [`Drafted by \`panoptes compile\` from ${basename(policyFile)} with ${label}.`, 'Review every item against its `source:` quote before use.'];
  const onRound = (what: string) => (round: CompileRound & { ok: boolean }) => {
    const errors = round.diagnostics.filter((diagnostic) => diagnostic.severity === 'error').length;
    const warnings = round.diagnostics.length - errors;
    const tokens = round.usage ? `, ${round.usage.inputTokens} in / ${round.usage.outputTokens} out tokens` : '';
    output.err(`${what} round ${round.round}: ${round.ok ? 'valid' : `${errors} error${errors === 1 ? '' : 's'}, repairing`}${warnings ? ` (${warnings} warning${warnings === 1 ? '' : 's'})` : ''}${tokens}`);
  };
  try {
    const maxRepairs = options.maxRepairs ?? 3;
    if (options.judge) {
      const rubrics = await compileRubrics(policy, { model: recorded, maxRepairs, header, schema: schemaReference(options.out ?? 'policy.rubrics.yaml', process.cwd(), 'rubric'), onRound: onRound('rubrics'), ...(tools ? { tools } : {}), source: options.out ?? 'policy.rubrics.yaml' });
      for (const diagnostic of rubrics.diagnostics) output.err(`  ${formatDiagnostic(diagnostic)}`);
      if (options.out === undefined) output.out(rubrics.yaml.trimEnd());
      else {
        await writeFileAtomic(options.out, rubrics.yaml);
        output.err(`wrote ${options.out}`);
      }
      return 0;
    }
    // On standard output the file's place is unknown: it is taken to be written in the working folder.
    const schema = schemaReference(options.out ?? 'workflow.yaml');
    const workflow = await compileWorkflow(policy, { model: recorded, maxRepairs, header, schema, onRound: onRound('workflow'), ...(tools ? { tools } : {}), source: options.out ?? 'workflow.yaml' });
    for (const diagnostic of workflow.diagnostics) output.err(`  ${formatDiagnostic(diagnostic)}`);
    if (options.out === undefined) output.out(workflow.yaml.trimEnd());
    else await writeFileAtomic(options.out, workflow.yaml);
    if (options.rulesOut !== undefined) {
      if (!tools) {
        output.err('--rules-out needs --tools: the rules may only name the agent\'s tools');
        return 2;
      }
      const rules = await compileRulebase(policy, { model: recorded, tools, maxRepairs, header, onRound: onRound('rules'), source: options.rulesOut });
      for (const diagnostic of rules.diagnostics) output.err(`  ${formatDiagnostic(diagnostic)}`);
      await writeFileAtomic(options.rulesOut, rules.text);
    }
    const written = [options.out, options.rulesOut].filter((file) => file !== undefined);
    if (written.length > 0) output.err(`wrote ${written.join(', ')}`);
    return 0;
  } catch (error) {
    if (CompileError.isInstance(error)) {
      output.err(error.message);
      return 1;
    }
    if (PanoptesError.isInstance(error)) {
      output.err(error.message);
      return 2;
    }
    output.err(`cannot write the output: ${writeErrorReason(error)}`);
    return 2;
  } finally {
    if (options.savePrompt !== undefined) await writeFileAtomic(options.savePrompt, `${JSON.stringify(conversations.at(-1) ?? [], null, 2)}\n`).catch(() => undefined);
  }
}

/** A file's text; one that cannot be read throws one line: `nope.md: no such file; <missingHint>`. */
async function readInput(file: string, missingHint: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(readFailureLine(readFailureDiagnostic(file, error, missingHint)));
  }
}

/** A JSON file's value; text that is not JSON throws `file: not JSON: ...`. */
async function readJson(file: string, missingHint: string): Promise<unknown> {
  const text = await readInput(file, missingHint);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`${file}: not JSON: ${(error as Error).message}`);
  }
}

function readTools(value: unknown, file: string): ToolSpec[] {
  const list = Array.isArray(value) ? value : undefined;
  if (!list) throw new Error(`${file}: expected a JSON list of tools (names or { "name", "parameters" } / OpenAI { "type": "function", "function": {...} })`);
  return list.map((tool: unknown, index) => {
    if (typeof tool === 'string') return tool;
    const record = tool as { name?: unknown; function?: { name?: unknown; parameters?: unknown }; parameters?: unknown };
    const inner = record.function ?? record;
    if (typeof inner.name !== 'string') throw new Error(`${file}: tools[${index}] has no name`);
    return { name: inner.name, ...(inner.parameters ? { parameters: inner.parameters as { properties?: Record<string, unknown> } } : {}) };
  });
}

/** A model that answers from a list, in order; running out is an error that names the file. */
function scriptedModel(value: unknown, file: string): CompilerModel {
  if (!Array.isArray(value) || value.length === 0) throw new Error(`${file}: expected a non-empty JSON list of model answers`);
  let next = 0;
  return async () => {
    if (next >= value.length) throw new Error(`${file} has ${value.length} answers and the compiler asked for another`);
    return value[next++] as unknown;
  };
}

/** The model through LangChain's `initChatModel` and the LangChain adapter, both loaded only now. */
async function langChainModel(spec: string): Promise<CompilerModel> {
  const chatModel = await initLangChainChatModel(spec);
  // The adapter is typed here by hand: the core's files never name an adapter's module, even as a type.
  const adapter = '../../../adapters/langchain/compiler-model.js';
  const { compilerModel } = (await import(adapter)) as { compilerModel: (chatModel: unknown) => CompilerModel };
  return compilerModel(chatModel);
}
