import type { Timers } from '../clock/index.js';
import type { Diagnostic } from '../diagnostics/index.js';
import { InvalidOptionError } from '../errors/index.js';
import type { ToolSpec } from '../rules/index.js';
import type { z } from 'zod';
import type { CompilerMessage, CompilerModel, TokenUsage } from './model.js';
import { initialMessages } from './prompt.js';
import { normalisePolicy, type NormalisedPolicy } from './quotes.js';
import { repairLoop, type CompileRound, type DraftCheck } from './repair.js';

/** Default of `maxRepairs`: rounds in which validation errors go back to the model. */
export const DEFAULT_MAX_REPAIRS = 3;
/** Default budget of one model call, in milliseconds. */
export const DEFAULT_COMPILE_TIMEOUT_MS = 120_000;

/** The options every compiler takes. */
export interface CompileOptions {
  model: CompilerModel;
  /** Rounds in which the draft's errors go back to the model. @default 3 */
  maxRepairs?: number;
  /** Budget of one model call, in milliseconds. @default 120000 */
  timeoutMs?: number;
  /** Label of the output in diagnostics. */
  source?: string;
  /** Comment lines at the top of the file (the policy's file name, the model). */
  header?: readonly string[];
  /** Called after each round, for progress. */
  onRound?: (round: CompileRound & { ok: boolean }) => void;
  /** Timer functions for the budget, replaceable in tests. */
  timers?: Timers;
}

/** What every compiler returns beside its output. */
export interface CompileOutcome {
  /** Every round's diagnostics (errors sent back, warnings kept) and usage. */
  rounds: CompileRound[];
  /** The last round's diagnostics: warnings, including `source-not-in-policy` for each quote the policy does not hold. */
  diagnostics: Diagnostic[];
  usage: TokenUsage;
  /** The conversation's first messages, to keep beside the output (what exactly the model was told). */
  prompt: CompilerMessage[];
}

/** What one compiler adds to {@link compileDraft}: its prompt, its draft's shape, and how a draft is checked. */
export interface DraftKind<Draft, Result> {
  /** For messages: `workflow` or `rulebase`. */
  what: string;
  systemPrompt: string;
  schema: z.ZodType<Draft>;
  tools?: readonly ToolSpec[] | undefined;
  /** Checks a draft against the policy (normalised for quote lookups). */
  check: (draft: Draft, policy: NormalisedPolicy) => DraftCheck<Result>;
}

/**
 * The part every compiler shares: checks the options, prompts the model with the policy (and the tools), and runs
 * the repair loop with the compiler's check.
 * @throws {InvalidOptionError} for an empty policy, a missing model or a bad `maxRepairs`.
 * @throws {CompileError} when the last round is still invalid, or a model call fails.
 */
export async function compileDraft<Draft, Result>(policyText: string, options: CompileOptions, kind: DraftKind<Draft, Result>): Promise<{ result: Result; text: string; rounds: CompileRound[]; usage: TokenUsage; prompt: CompilerMessage[] }> {
  const { model, maxRepairs = DEFAULT_MAX_REPAIRS, timeoutMs = DEFAULT_COMPILE_TIMEOUT_MS, onRound, timers } = options;
  if (typeof policyText !== 'string' || policyText.trim() === '') throw new InvalidOptionError({ parameter: 'policyText', value: policyText, fix: 'Pass the policy as non-empty text.' });
  if (typeof model !== 'function') throw new InvalidOptionError({ parameter: 'model', value: model, fix: 'Pass a function (messages, jsonSchema) => Promise<object>, e.g. compilerModel(chatModel) from panoptes/langchain.' });
  if (!Number.isInteger(maxRepairs) || maxRepairs < 0) throw new InvalidOptionError({ parameter: 'maxRepairs', value: maxRepairs, fix: 'Pass a whole number >= 0; the default is 3.' });
  const policy = normalisePolicy(policyText);
  const prompt = initialMessages(kind.systemPrompt, policyText, kind.tools);
  const outcome = await repairLoop({
    model,
    schema: kind.schema,
    messages: prompt,
    maxRepairs,
    timeoutMs,
    ...(timers ? { timers } : {}),
    ...(onRound ? { onRound } : {}),
    what: kind.what,
    check: (draft: Draft) => kind.check(draft, policy),
  });
  return { ...outcome, prompt };
}
