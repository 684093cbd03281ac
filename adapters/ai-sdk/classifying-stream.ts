import type { ResponseContent, StreamPart } from './host-types.js';
import { withSessionMetadata } from './session-id.js';
import { routeOf, streamedContent } from './stream-state.js';

/** Classifies a finished response; never rejects (the middleware logs its failures instead). */
export type ClassifyResponse = (sessionId: string, content: readonly ResponseContent[]) => Promise<void>;

type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<StreamPart>['read']>>;

/**
 * `source`, passed on chunk by chunk, with the response classified when the model's output ends (`routeOf` says
 * which chunks wait for that). The stream closes once classification is done, so a step ends classified and a
 * serverless function that returns when the stream ends does not lose it; every chunk has been delivered by then.
 *
 * The source is read as fast as it delivers, each chunk passed on the moment it arrives, rather than once per
 * consumer pull: in Node a pull costs an async call and two promise hops more per chunk, and
 * `pipeThrough(new TransformStream())` more again (bench/adapters-ai-sdk.ts measures the whole call). So this stream
 * does not slow the model down for a slow consumer: a response nobody reads is still read to its end (a model
 * response, a few KB) and classified. A cancel is passed on to the source, and nothing is classified after it.
 * @example
 * const result = await doStream();
 * return { ...result, stream: classifyingStream(result.stream, sessionId, classify) };
 */
export function classifyingStream(source: ReadableStream<StreamPart>, sessionId: string, classify: ClassifyResponse): ReadableStream<StreamPart> {
  const reader = source.getReader();
  let controller!: ReadableStreamDefaultController<StreamPart>;
  const seen: StreamPart[] = []; // the response so far, put together only once it has ended
  let held: StreamPart[] = [];
  let classified: Promise<void> | undefined;
  let ended = false; // the consumer cancelled or the source failed: nothing more is classified or passed on

  /** Classifies the response (once), then passes on the tool calls held for it. */
  const release = () => {
    // Started before the held tool calls go out, so the monitor sees the response before any check of them.
    classified ??= classify(sessionId, streamedContent(seen));
    for (const part of held) controller.enqueue(part);
    held = [];
  };
  const fail = (error: unknown) => {
    if (ended) return;
    ended = true;
    controller.error(error); // a failing source fails this stream with the same error
  };
  const close = () => {
    if (!ended) controller.close();
  };
  const onRead = (result: ReadResult) => {
    if (ended) return;
    try {
      if (result.done) {
        release(); // a response cut off before `finish` is classified too
        void classified!.then(close, close); // a classifier that rejects anyway must not leave the stream open
        return;
      }
      const part = result.value;
      seen.push(part);
      const route = routeOf(part);
      if (route === 'pass') controller.enqueue(part);
      else if (route === 'hold') held.push(part);
      else {
        release();
        controller.enqueue(part.type === 'finish' ? { ...part, providerMetadata: withSessionMetadata(part.providerMetadata, sessionId) } : part);
      }
      void reader.read().then(onRead, fail);
    } catch (error) {
      // Nothing here is expected to throw; if it does, fail this stream rather than leave a rejection unhandled.
      fail(error);
      reader.cancel(error).catch(() => {});
    }
  };

  return new ReadableStream<StreamPart>({
    start(streamController) {
      controller = streamController;
      void reader.read().then(onRead, fail);
    },
    cancel(reason) {
      ended = true; // the pending read now resolves as done, and is ignored
      return reader.cancel(reason);
    },
  });
}
