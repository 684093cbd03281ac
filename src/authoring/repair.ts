import { TimedOut, within } from '../async/index.js';
import { systemTimers, type Timers } from '../clock/index.js';
import type { Diagnostic } from '../diagnostics/index.js';
import { z } from 'zod';
import { CompileError } from './compile-error.js';
import { unwrapAnswer, type CompilerMessage, type CompilerModel, type TokenUsage } from './model.js';
import { repairMessage } from './prompt.js';

/** One model call and what Panoptes found in its answer. */
export interface CompileRound {
  /** 1 for the first draft, 2 for the first repair, ... */
  round: number;
  diagnostics: Diagnostic[];
  usage?: TokenUsage;
}

/** What a check of one draft gives: its text as written out, its diagnostics, and the built result when valid. */
export interface DraftCheck<Result> {
  text: string;
  diagnostics: Diagnostic[];
  result?: Result;
}

export interface RepairLoopOptions<Draft, Result> {
  model: CompilerModel;
  /** The draft's shape; the model is sent its JSON Schema. */
  schema: z.ZodType<Draft>;
  messages: CompilerMessage[];
  maxRepairs: number;
  timeoutMs: number;
  timers?: Timers;
  check: (draft: Draft) => DraftCheck<Result>;
  onRound?: (round: CompileRound & { ok: boolean }) => void;
  /** For messages: `workflow` or `rulebase`. */
  what: string;
}

/**
 * Asks the model for a draft, checks it, and while it has errors sends the draft and its positioned diagnostics back
 * for at most `maxRepairs` more rounds. An answer that is not JSON or not of the schema's shape is a round with a
 * diagnostic like any other, so the model gets to fix it. A model call that throws or outlives `timeoutMs` ends the
 * compile with a {@link CompileError} whose `cause` is the failure.
 */
export async function repairLoop<Draft, Result>(options: RepairLoopOptions<Draft, Result>): Promise<{ result: Result; text: string; rounds: CompileRound[]; usage: TokenUsage }> {
  const { model, schema, maxRepairs, timeoutMs, timers = systemTimers, check, onRound, what } = options;
  const jsonSchema = z.toJSONSchema(schema) as Record<string, unknown>;
  const messages = [...options.messages];
  const rounds: CompileRound[] = [];
  let last: DraftCheck<Result> | undefined;
  for (let round = 1; round <= maxRepairs + 1; round++) {
    let answer: unknown;
    try {
      answer = await within(model(messages, jsonSchema), timeoutMs, timers);
    } catch (error) {
      const reason = error instanceof TimedOut ? `no answer within ${timeoutMs} ms` : error instanceof Error ? error.message : String(error);
      throw new CompileError(`The model call failed in round ${round} of compiling the ${what}: ${reason}`, { rounds, ...(last ? { text: last.text } : {}), cause: error });
    }
    const { value, usage } = unwrapAnswer(answer);
    const parsed = readDraft(value, schema);
    last = 'draft' in parsed ? check(parsed.draft) : { text: parsed.text, diagnostics: parsed.diagnostics };
    const entry: CompileRound = { round, diagnostics: last.diagnostics, ...(usage ? { usage } : {}) };
    rounds.push(entry);
    const ok = last.result !== undefined;
    onRound?.({ ...entry, ok });
    if (ok) return { result: last.result!, text: last.text, rounds, usage: totalUsage(rounds) };
    messages.push({ role: 'assistant', content: typeof value === 'string' ? value : JSON.stringify(value) }, { role: 'user', content: repairMessage(last.text, last.diagnostics) });
  }
  throw new CompileError(`The model's ${what} is still invalid after ${maxRepairs} repair round${maxRepairs === 1 ? '' : 's'}`, { diagnostics: last!.diagnostics, rounds, text: last!.text });
}

/** The tokens of every round together (rounds whose provider reported none count 0). */
function totalUsage(rounds: readonly CompileRound[]): TokenUsage {
  return rounds.reduce((sum, round) => ({ inputTokens: sum.inputTokens + (round.usage?.inputTokens ?? 0), outputTokens: sum.outputTokens + (round.usage?.outputTokens ?? 0) }), { inputTokens: 0, outputTokens: 0 });
}

/** The model's answer as a draft, or the diagnostic that says why it is not one. */
function readDraft<Draft>(value: unknown, schema: z.ZodType<Draft>): { draft: Draft } | { text: string; diagnostics: Diagnostic[] } {
  let data = value;
  if (typeof value === 'string') {
    try {
      data = JSON.parse(value.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
    } catch {
      const excerpt = value.length > 200 ? `${value.slice(0, 197)}...` : value;
      return { text: value, diagnostics: [{ severity: 'error', code: 'not-json', path: '', message: `the answer is not JSON: ${JSON.stringify(excerpt)}`, hint: 'answer with one JSON object that follows the JSON Schema, and nothing else' }] };
    }
  }
  const result = schema.safeParse(data);
  if (result.success) return { draft: result.data };
  return {
    text: JSON.stringify(data, null, 2) ?? String(data),
    diagnostics: result.error.issues.slice(0, 20).map((issue) => ({
      severity: 'error' as const,
      code: 'draft-shape',
      path: issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('').replace(/^\./, ''),
      message: issue.message,
      hint: 'follow the JSON Schema',
    })),
  };
}
