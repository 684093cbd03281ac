/**
 * A legacy completion request (`POST /v1/completions`) as the monitor reads it: its prompt is one user message, with
 * the interventions written into the prompt's text.
 * @module
 */
import type { ChatMessage } from '../../../messages/index.js';
import { proxyError, type ProxyError } from '../../errors.js';
import { editsOf } from '../../translate.js';
import { nProblem } from '../chat.js';
import type { RequestBody } from '../route.js';

/** A `POST /v1/completions` body, as far as the proxy reads it. */
export interface CompletionRequest extends RequestBody {
  prompt: string | [string];
  n?: unknown;
  best_of?: unknown;
}

/**
 * Why `body` is not a legacy completion the proxy can monitor: its prompt must be text (a string, or a list of one),
 * since a list of prompts is several completions in one call and token ids cannot be read; `n` and `best_of` must be
 * 1, as for chat (one answer per step).
 */
export function completionProblem(body: RequestBody): ProxyError | undefined {
  const { prompt } = body;
  const text = typeof prompt === 'string' || (Array.isArray(prompt) && prompt.length === 1 && typeof prompt[0] === 'string');
  if (!text) return proxyError(400, 'invalid_request_error', 'invalid_completion_request', "Not a completion the proxy can monitor: 'prompt' must be one text prompt (a string, or a list of one string); several prompts or token ids cannot be checked as one answer.", 'prompt');
  const bestOf = body.best_of;
  if (bestOf !== undefined && bestOf !== null && bestOf !== 1) return proxyError(400, 'invalid_request_error', 'unsupported_n', 'The proxy monitors one choice per call: send best_of = 1 (or leave it out).', 'best_of');
  return nProblem(body.n);
}

/** The prompt's text. */
function promptOf(body: CompletionRequest): string {
  return typeof body.prompt === 'string' ? body.prompt : body.prompt[0];
}

/** The prompt as the one user message of the request. */
export function completionMessages(body: CompletionRequest): ChatMessage[] {
  return [{ role: 'user', content: promptOf(body) }];
}

/**
 * The body with the monitor's edits written into the prompt: guidance for a system prompt goes before it, after a
 * blank line; text appended to the user message, or a message added after it, goes after it.
 */
export function completionEdited(body: CompletionRequest, chat: readonly ChatMessage[], edited: readonly ChatMessage[]): CompletionRequest {
  let before = '';
  let prompt = promptOf(body);
  let placed = false;
  for (const edit of editsOf(chat, edited)) {
    if (edit.kind === 'added' && !placed) before += `${edit.message.content}\n\n`;
    else if (edit.kind === 'added') prompt += `\n\n${edit.message.content}`;
    else {
      placed = true;
      if (edit.kind === 'appended') prompt += edit.suffix;
    }
  }
  const text = `${before}${prompt}`;
  return { ...body, prompt: typeof body.prompt === 'string' ? text : [text] };
}
