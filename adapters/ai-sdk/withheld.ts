/**
 * What a response withheld before delivery becomes in the AI SDK: the workflow's user message as its text, finish
 * reason `content-filter` (raw `panoptes-withheld`), and the withholding in `providerMetadata.panoptes.withheld`
 * (its state and constraints, never its text). Usage stays when the provider sent it: the tokens were paid for.
 * @module
 */
import type { WithheldResponse } from '../../src/index.js';
import type { GenerateResult, ProviderMetadata, StreamPart } from './host-types.js';
import { withSessionMetadata } from './session-id.js';

type FinishPart = Extract<StreamPart, { type: 'finish' }>;

/** The finish reason of a withheld response. */
export const WITHHELD_FINISH = { unified: 'content-filter', raw: 'panoptes-withheld' } as const;

/** The usage of a response cut short: the provider never sent its count. */
export const UNKNOWN_USAGE: FinishPart['usage'] = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

/** Provider metadata with the withholding recorded under `panoptes`, beside what was there. */
function withWithheld(metadata: ProviderMetadata | undefined, withheld: WithheldResponse): ProviderMetadata {
  return { ...metadata, panoptes: { ...metadata?.panoptes, withheld: { state: withheld.state, constraints: withheld.constraints } } };
}

/**
 * A generated response withheld: the user message is its only content (no tool calls, no reasoning).
 * @example
 * withheldResult(result, withheld).content // [{ type: 'text', text: withheld.userMessage }]
 */
export function withheldResult(result: GenerateResult, withheld: WithheldResponse): GenerateResult {
  return { ...result, content: [{ type: 'text', text: withheld.userMessage }], finishReason: WITHHELD_FINISH, providerMetadata: withWithheld(result.providerMetadata, withheld) };
}

/** The `finish` chunk that ends a withheld stream, from the response's own when it came (its usage kept). */
export function withheldFinish(finish: FinishPart | undefined, withheld: WithheldResponse, sessionId: string): StreamPart {
  return { type: 'finish', finishReason: WITHHELD_FINISH, usage: finish?.usage ?? UNKNOWN_USAGE, providerMetadata: withSessionMetadata(withWithheld(finish?.providerMetadata, withheld), sessionId) };
}
