import type { Diagnostic } from '../diagnostics/index.js';
import { analyzeRulebase, type Rulebase, type ToolSpec } from '../rules/index.js';
import { compileDraft, type CompileOptions, type CompileOutcome } from './compile-draft.js';
import { rulebaseDraftSchema, type RulebaseDraft } from './draft.js';
import { RULEBASE_SYSTEM_PROMPT } from './prompt.js';
import { quoteOccurs } from './quotes.js';

/** Options of {@link compileRulebase}. `source` defaults to `'policy.rules'`. */
export interface CompileRulebaseOptions extends CompileOptions {
  /** The agent's tools: guards and data declarations may name only these, with their parameters. */
  tools: readonly ToolSpec[];
}

/** What the rulebase compiler produced. */
export interface CompiledRulebase extends CompileOutcome {
  /** The rules file, each item under a `# source:` comment quoting the policy. */
  text: string;
  rulebase: Rulebase;
  /** 0-based indexes of items whose source is not a quote of the policy. */
  unquoted: number[];
}

/**
 * Drafts a rulebase from a written policy and the agent's tools, checks it as `panoptes rules check --tools` does,
 * and repairs it like {@link compileWorkflow}. Each declaration and rule is written under a `# source:` comment.
 * @throws {CompileError} when the last round is still invalid, or a model call fails.
 * @example
 * const { text } = await compileRulebase(policy, { model, tools: JSON.parse(await readFile('tools.json', 'utf8')) });
 */
export async function compileRulebase(policyText: string, options: CompileRulebaseOptions): Promise<CompiledRulebase> {
  const { tools, source = 'policy.rules', header = [] } = options;
  const { result, text, rounds, usage, prompt } = await compileDraft(policyText, options, {
    what: 'rulebase',
    systemPrompt: RULEBASE_SYSTEM_PROMPT,
    schema: rulebaseDraftSchema,
    tools,
    check: (draft: RulebaseDraft, policy) => {
      const unquoted = draft.items.flatMap((item, index) => (quoteOccurs(item.source, policy) ? [] : [index]));
      const rendered = renderRules(draft, new Set(unquoted), header);
      const analysed = analyzeRulebase(rendered, { source, tools });
      const warnings: Diagnostic[] = unquoted.map((index) => ({
        severity: 'warning',
        code: 'source-not-in-policy',
        path: `items[${index}]`,
        message: `the source of ${JSON.stringify(draft.items[index]!.text.slice(0, 60))} is not a quote of the policy`,
        hint: 'check this item against the policy by hand',
        source,
      }));
      const diagnostics = [...analysed.diagnostics, ...warnings];
      return { text: rendered, diagnostics, ...(analysed.rulebase ? { result: { rulebase: analysed.rulebase, diagnostics, unquoted } } : {}) };
    },
  });
  return { text, rulebase: result.rulebase, rounds, diagnostics: result.diagnostics, unquoted: result.unquoted, usage, prompt };
}

function renderRules(draft: RulebaseDraft, unquoted: ReadonlySet<number>, header: readonly string[]): string {
  const lines = header.map((line) => `# ${line}`);
  draft.items.forEach((item, index) => {
    lines.push('', `# source: ${JSON.stringify(item.source.replace(/\s+/g, ' '))}`);
    if (unquoted.has(index)) lines.push('# CHECK: this source is not a quote of the policy');
    lines.push(item.text.trim());
  });
  return `${lines.join('\n').trimStart()}\n`;
}
