/**
 * What the middleware remembers while a response streams past, as a pure step function: the stream wrapper only
 * calls it (STYLE.md: no parser logic inside a stream), and tests drive it chunk by chunk.
 * @module
 */
import type { ResponseContent, ResponseToolCall, StreamPart } from './host-types.js';

/** The response so far. Never mutated: each step returns a new state. */
export interface StreamState {
  /** Text of the response so far; separate text blocks are joined by a newline. */
  text: string;
  /** Whether a text block has started, so the next one is separated from it. */
  hasText: boolean;
  /** Every tool call, in order. */
  toolCalls: ResponseToolCall[];
  /** Tool calls the host will execute, held back until the model's output ends (see {@link stepStream}). */
  held: ResponseToolCall[];
  /** Whether the response has been handed over for classification. */
  classified: boolean;
}

/** What to do after one chunk: pass on `emit` (in order), and classify the response now when `classify` is set. */
export interface StreamStep {
  state: StreamState;
  emit: StreamPart[];
  classify: boolean;
}

/** The state before the first chunk. */
export const initialStreamState: StreamState = { text: '', hasText: false, toolCalls: [], held: [], classified: false };

/**
 * Advances the state by one chunk. Every chunk is passed on at once, except the tool calls the host executes
 * itself: those wait for the `finish` chunk, and the response is classified just before they are released. The
 * pre-emptive check in `guardTools` must find the response classified, or the monitor would later record a refused
 * call as one that ran. Current `ai` releases start tools only after `finish` anyway; holding keeps the order on
 * hosts that start a tool as soon as its call arrives. Tool calls end a response, so text is never delayed.
 * @example
 * let state = initialStreamState;
 * const step = stepStream(state, { type: 'text-delta', id: 't', delta: 'Hello' }); // emits the delta at once
 */
export function stepStream(state: StreamState, part: StreamPart): StreamStep {
  switch (part.type) {
    case 'text-start':
      return { state: state.hasText ? { ...state, text: `${state.text}\n` } : { ...state, hasText: true }, emit: [part], classify: false };
    case 'text-delta':
      return { state: { ...state, text: state.text + part.delta, hasText: true }, emit: [part], classify: false };
    case 'tool-call': {
      const toolCalls = [...state.toolCalls, part];
      // A provider-executed call's result may follow in this same stream, so it must not be reordered after it.
      if (part.providerExecuted === true) return { state: { ...state, toolCalls }, emit: [part], classify: false };
      return { state: { ...state, toolCalls, held: [...state.held, part] }, emit: [], classify: false };
    }
    case 'finish':
      return release(state, [part]);
    default:
      return { state, emit: [part], classify: false };
  }
}

/**
 * The stream closed: classify if `finish` never came (a cut-off response), and release what is held.
 * @example
 * const { emit, classify } = endStream(state); // emit the held tool calls; classify unless `finish` already did
 */
export function endStream(state: StreamState): StreamStep {
  return release(state, []);
}

function release(state: StreamState, after: StreamPart[]): StreamStep {
  return { state: { ...state, held: [], classified: true }, emit: [...state.held, ...after], classify: !state.classified };
}

/**
 * The streamed response as response content, ready for translation.
 * @example
 * toAssistantTurn(streamedContent(state))
 */
export function streamedContent(state: StreamState): ResponseContent[] {
  return [...(state.text === '' ? [] : [{ type: 'text' as const, text: state.text }]), ...state.toolCalls];
}
