import { canonicalJson } from './canonical-json.js';
import type { ExemptionTest } from './exempt.js';
import { hashString } from './hash.js';
import { excerpt } from './hints.js';
import { comparableText, COMPARED_CHARACTERS, createVolatileNormalizer } from './normalize.js';
import type { LoopCallEvidence, LoopStep, LoopToolResult } from './types.js';

/** A tool call reduced to what the checks compare. @internal */
export interface PreparedCall {
  name: string;
  id: string | undefined;
  /** Hash of the name and the canonical (normalised) arguments: equal keys, same call. */
  key: number;
  /** Canonical JSON arguments, for the embedding subject. */
  args: string;
}

/** A tool result reduced to what the checks compare. @internal */
export interface PreparedResult {
  toolCallId: string | undefined;
  name: string | undefined;
  /** Hash of the normalised content: equal keys, same result. */
  key: number;
  isError: boolean;
}

/**
 * A step reduced to hashes, in one of four shapes: `empty` (nothing to check), `results` (completes earlier calls),
 * `exempt` (only calls to exempt tools: skipped) and `step` (checked).
 * @internal
 */
export type PreparedStep =
  | { kind: 'empty' }
  | { kind: 'results'; results: PreparedResult[] }
  | { kind: 'exempt'; results: PreparedResult[] }
  | {
      kind: 'step';
      text: string;
      /** Hash of the comparable text; 0 when there is none. */
      textKey: number;
      calls: PreparedCall[];
      results: PreparedResult[];
      /** Hash of the text and the calls: what `alternation` compares. */
      key: number;
      /** The model's reasoning, for `repeated-line` only. */
      reasoning: string;
      /** Names of this step's calls to tools that are not offered (empty when the offered tools are not known). */
      unknown: string[];
      /** The tools offered on this call, when known. */
      available: readonly string[] | undefined;
    };

/** What the preparer needs from the options. @internal */
export interface StepPreparerOptions {
  isExempt: ExemptionTest;
  ignoreKeys: ReadonlySet<string>;
  volatilePatterns: readonly RegExp[];
  normalizeArguments: boolean;
  tools: readonly string[] | undefined;
  /**
   * Whether texts are compared across steps (`monologue`, `alternation`, the semantic check). Without them a text's
   * comparable form is never read, and normalising 64 KB of it is most of a step's cost.
   */
  comparesTexts: boolean;
}

/** Longest embedding subject: enough for the gist of a step, bounded so a huge step costs the embedder little. */
const SUBJECT_CHARACTERS = 4096;

/**
 * Builds the function that turns a host's step into hashes. Defensive throughout: a step comes from a model and
 * from user code, so a missing field, a non-string text or a call without a name is read as absent, never a crash.
 * @internal
 */
export function createStepPreparer({ isExempt, ignoreKeys, volatilePatterns, normalizeArguments, tools, comparesTexts }: StepPreparerOptions) {
  const normalizeVolatile = createVolatileNormalizer(volatilePatterns);
  const canonicalOptions = ignoreKeys.size > 0 ? { ignoreKeys } : {};

  const prepareCall = (call: { id?: unknown; name: string; args?: unknown }): PreparedCall => {
    const args = canonicalJson(call.args ?? {}, canonicalOptions);
    const compared = normalizeArguments ? normalizeVolatile(args) : args;
    return { name: call.name, id: typeof call.id === 'string' ? call.id : undefined, key: hashString(`${call.name}\u0000${compared}`), args };
  };

  const prepareResult = (result: LoopToolResult): PreparedResult => ({
    toolCallId: typeof result.toolCallId === 'string' ? result.toolCallId : undefined,
    name: typeof result.name === 'string' ? result.name : undefined,
    key: hashString(comparableResult(result.content)),
    isError: result.isError === true,
  });

  /** Text results are often JSON: parsed so `ignoreKeys` reach inside them, when there are keys to ignore. */
  const comparableResult = (content: unknown): string => {
    let value = content;
    if (typeof content === 'string' && ignoreKeys.size > 0 && content.length <= COMPARED_CHARACTERS && /^\s*[[{]/.test(content)) {
      try {
        value = JSON.parse(content) as unknown;
      } catch {
        // Not JSON after all: compare the text as it is.
      }
    }
    const text = typeof value === 'string' ? value : canonicalJson(value, canonicalOptions);
    return comparableText(text, normalizeVolatile);
  };

  return function prepareStep(step: LoopStep | null | undefined): PreparedStep {
    if (typeof step !== 'object' || step === null) return { kind: 'empty' };
    const text = typeof step.text === 'string' ? step.text.trim() : '';
    const allCalls = Array.isArray(step.toolCalls) ? step.toolCalls.filter(isCall) : [];
    const results = Array.isArray(step.toolResults) ? step.toolResults.filter(isResult).map(prepareResult) : [];
    const calls = allCalls.filter((call) => !isExempt(call)).map(prepareCall);
    if (calls.length < allCalls.length && calls.length === 0) return { kind: 'exempt', results };
    const reasoning = typeof step.reasoning === 'string' ? step.reasoning.trim() : '';
    if (text === '' && calls.length === 0 && reasoning === '') return results.length > 0 ? { kind: 'results', results } : { kind: 'empty' };
    const textKey = text === '' || !comparesTexts ? 0 : hashString(comparableText(text, normalizeVolatile));
    const available = Array.isArray(step.availableTools) ? step.availableTools.filter((name): name is string => typeof name === 'string') : tools;
    const unknown = available === undefined ? [] : calls.filter((call) => !available.includes(call.name)).map((call) => call.name);
    const key = hashString(`${textKey}|${calls.map((call) => call.key).join(',')}`);
    return { kind: 'step', text, textKey, calls, results, key, reasoning, unknown, available };
  };
}

/** What the semantic check embeds: the step's text and calls, never the prompt (which grows every turn). @internal */
export function subjectOf(step: { text: string; calls: readonly PreparedCall[] }): string {
  const lines = step.text === '' ? [] : [step.text];
  for (const call of step.calls) lines.push(`${call.name}(${call.args})`);
  const subject = lines.join('\n');
  return subject.length <= SUBJECT_CHARACTERS ? subject : subject.slice(0, SUBJECT_CHARACTERS);
}

/** A call as evidence: name and arguments cut to 200 characters. @internal */
export function callEvidence(call: { name: string; args: string }): LoopCallEvidence {
  return { name: call.name, args: excerpt(call.args) };
}

function isCall(call: unknown): call is { id?: unknown; name: string; args?: unknown } {
  return typeof call === 'object' && call !== null && typeof (call as { name?: unknown }).name === 'string' && (call as { name: string }).name !== '';
}

function isResult(result: unknown): result is LoopToolResult {
  return typeof result === 'object' && result !== null;
}
