import type { ResponseContent, StreamPart } from './host-types.js';
import { withSessionMetadata } from './session-id.js';
import { endStream, initialStreamState, stepStream, streamedContent, type StreamState, type StreamStep } from './stream-state.js';

/**
 * `source`, passed on chunk by chunk as the consumer reads, with the response classified when the model's output
 * ends (see `stepStream` for the order of tool calls). The stream closes once classification is done, so a step
 * ends classified; every chunk has been delivered by then.
 *
 * A pull-based stream rather than `pipeThrough(new TransformStream())`: both pass chunks on the moment they arrive,
 * but in Node the pipe machinery costs about 10 us per chunk (150-200 us for a short answer, measured in
 * bench/adapters-ai-sdk.ts), most of the 0.2 ms budget per call, and a pull costs a fraction of that.
 * @example
 * const result = await doStream();
 * return { ...result, stream: classifyingStream(result.stream, sessionId, classify) };
 */
export function classifyingStream(
  source: ReadableStream<StreamPart>,
  sessionId: string,
  classify: (sessionId: string, content: readonly ResponseContent[]) => Promise<void>,
): ReadableStream<StreamPart> {
  const reader = source.getReader();
  let state: StreamState = initialStreamState;
  let classified: Promise<void> | undefined;
  const apply = (step: StreamStep, controller: ReadableStreamDefaultController<StreamPart>) => {
    state = step.state;
    // Started before the held tool calls are released, so the monitor sees the response before any check of them.
    if (step.classify) classified = classify(sessionId, streamedContent(state));
    for (const part of step.emit) controller.enqueue(part.type === 'finish' ? { ...part, providerMetadata: withSessionMetadata(part.providerMetadata, sessionId) } : part);
  };
  return new ReadableStream<StreamPart>({
    async pull(controller) {
      // A pull that enqueues nothing is not repeated by the stream, so read on past held tool calls.
      for (;;) {
        const { done, value } = await reader.read(); // a failing source fails this stream with the same error
        if (done) break;
        const step = stepStream(state, value);
        apply(step, controller);
        if (step.emit.length > 0) return;
      }
      apply(endStream(state), controller);
      await classified;
      controller.close();
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
