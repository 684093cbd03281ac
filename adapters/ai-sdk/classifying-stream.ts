import type { LoopFinding, StreamWatch } from '../../src/index.js';
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
 *
 * With a `watch` (the loop detector's, {@link StreamWatch}), text and reasoning deltas are fed to it as they pass;
 * once the response starts chanting, the stream is cut: the source is cancelled (the provider stops generating),
 * the open text and reasoning blocks are ended, the response so far is classified (the loop detector then reports the
 * loop and escalates it as for any response), and a `finish` chunk with finish reason `other` (raw
 * `panoptes-loop`) names the loop in `providerMetadata.panoptes.loop`.
 * @example
 * const result = await doStream();
 * return { ...result, stream: classifyingStream(result.stream, sessionId, classify) };
 */
export function classifyingStream(source: ReadableStream<StreamPart>, sessionId: string, classify: ClassifyResponse, watch?: StreamWatch): ReadableStream<StreamPart> {
  const reader = source.getReader();
  let controller!: ReadableStreamDefaultController<StreamPart>;
  const seen: StreamPart[] = []; // the response so far, put together only once it has ended
  let held: StreamPart[] = [];
  let classified: Promise<void> | undefined;
  let ended = false; // the consumer cancelled or the source failed: nothing more is classified or passed on
  const open = new Map<string, 'text-end' | 'reasoning-end'>(); // blocks started and not yet ended, for a cut

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
      if (route === 'pass') {
        controller.enqueue(part);
        if (watch) {
          const loop = watched(part);
          if (loop) return cut(loop);
        }
      } else if (route === 'hold') held.push(part);
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

  /** Feeds a passing chunk to the watch; the loop it completes, if any. */
  const watched = (part: StreamPart): LoopFinding | null => {
    if (part.type === 'text-start' || part.type === 'reasoning-start') open.set(part.id, part.type === 'text-start' ? 'text-end' : 'reasoning-end');
    else if (part.type === 'text-end' || part.type === 'reasoning-end') open.delete(part.id);
    else if (part.type === 'text-delta') return watch!.text(part.delta);
    else if (part.type === 'reasoning-delta') return watch!.reasoning(part.delta);
    return null;
  };
  /** Ends the response here: the provider stops, the blocks close, the response so far is classified, then `finish`. */
  const cut = (loop: LoopFinding) => {
    ended = true; // the source's pending reads are ignored from now on
    reader.cancel(new Error(`Panoptes cut the response short: ${loop.detail}`)).catch(() => {});
    for (const [id, type] of open) controller.enqueue({ type, id });
    release();
    const finish: StreamPart = {
      type: 'finish',
      finishReason: { unified: 'other', raw: 'panoptes-loop' },
      usage: UNKNOWN_USAGE,
      providerMetadata: withSessionMetadata({ panoptes: { loop: { kind: loop.kind, detail: loop.detail } } }, sessionId),
    };
    const done = () => {
      controller.enqueue(finish);
      controller.close();
    };
    void classified!.then(done, done);
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

/** The usage of a response cut short: the provider never sent its count. */
const UNKNOWN_USAGE = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};
