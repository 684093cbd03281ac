import type { LoopFinding, StreamWatch, TextWatch, WithheldResponse } from '../../src/index.js';
import type { ProviderMetadata, ResponseContent, StreamPart } from './host-types.js';
import { withSessionMetadata } from './session-id.js';
import { heldBytesOf, holdRouteOf, routeOf, streamedContent } from './stream-state.js';
import { UNKNOWN_USAGE, withheldFinish } from './withheld.js';

/**
 * Classifies a finished (or cut) response; never rejects (the middleware logs its failures instead). `withhold`:
 * the response may still be kept from the user (held, or cut before the rest went out); the answer is then what
 * withholds it, if anything.
 */
export type ClassifyResponse = (sessionId: string, content: readonly ResponseContent[], withhold: boolean) => Promise<WithheldResponse | void | undefined>;

/** How the text of a response is checked before it reaches the user (see the middleware's `textPolicy`). */
export interface TextChecks {
  /** The session's text watch: the patterns of the states a response would be withheld for. */
  watch: TextWatch;
  /** `hold`: the response waits until it is classified (bounded); `stream`: it passes at once and is cut where recognised. */
  policy: 'stream' | 'hold';
  /** Past this many bytes of held text, the rest streams (a counted `hold` miss). */
  maxBytes: number;
  /** Past this many milliseconds of holding, the rest streams (a counted `hold` miss). */
  maxMs: number;
  /**
   * For `regenerate`: the model's second response, already checked as this one is, or undefined. Asked for only when
   * nothing of this response's text has reached the user; otherwise it is replaced.
   */
  retry?: () => Promise<ReadableStream<StreamPart> | undefined>;
}

/** What {@link classifyingStream} watches besides the classification at the end. */
export interface StreamChecks {
  /** The loop detector's watch: a response that starts chanting is cut. */
  loops?: StreamWatch;
  /** The text checks of a session whose responses could be withheld. */
  text?: TextChecks;
  /** Receives the response as the client received it (the replacement, when withheld), once it is settled. */
  answered?: (content: readonly ResponseContent[]) => void;
}

type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<StreamPart>['read']>>;
type FinishPart = Extract<StreamPart, { type: 'finish' }>;
/** Why the response was cut short. */
type Cut = { kind: 'loop'; loop: LoopFinding } | { kind: 'text' };

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
 * With `loops` (the loop detector's {@link StreamWatch}), text and reasoning deltas are fed to it as they pass; once
 * the response starts chanting, the stream is cut: the source is cancelled (the provider stops generating), the open
 * text and reasoning blocks are ended, the response so far is classified, and a `finish` chunk with finish reason
 * `other` (raw `panoptes-loop`) names the loop in `providerMetadata.panoptes.loop`.
 *
 * With `text`, every text delta is checked before it goes on. One that completes a pattern of a state the response
 * would be withheld for cuts the stream there, that delta not passed on. `hold` keeps everything the response says
 * until it is classified (past `maxBytes` or `maxMs` the rest streams, a counted miss). A response the monitor
 * withholds ends with the replacement (appended to the text block that was going out, if any) and a `finish` chunk
 * with finish reason `content-filter` (raw `panoptes-withheld`) naming the constraints in
 * `providerMetadata.panoptes.withheld`; with `retry`, when none of its text went out, the second response follows
 * instead.
 * @example
 * const result = await doStream();
 * return { ...result, stream: classifyingStream(result.stream, sessionId, classify) };
 */
export function classifyingStream(source: ReadableStream<StreamPart>, sessionId: string, classify: ClassifyResponse, { loops, text, answered }: StreamChecks = {}): ReadableStream<StreamPart> {
  const reader = source.getReader();
  let controller!: ReadableStreamDefaultController<StreamPart>;
  const seen: StreamPart[] = []; // the response so far, put together only once it has ended
  let held: StreamPart[] = [];
  let classified: Promise<WithheldResponse | void | undefined> | undefined;
  let stopped = false; // the source is no longer read: it ended, failed, was cut or cancelled
  let gone = false; // the consumer cancelled or the source failed: nothing more is passed on
  let holding = text?.policy === 'hold';
  let heldBytes = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let delivered = 0; // how many of `seen` had gone out (held tool calls aside) before the end
  let finished: FinishPart | undefined; // a held response's `finish`, passed on (or not) once it is classified
  let closed = false;
  let second: ReadableStreamDefaultReader<StreamPart> | undefined; // a regenerated response being passed on
  const tracking = loops !== undefined || text !== undefined;
  const open = new Map<string, 'text-end' | 'reasoning-end'>(); // blocks passed on and not yet ended

  const emit = (part: StreamPart) => {
    if (tracking) {
      if (part.type === 'text-start' || part.type === 'reasoning-start') open.set(part.id, part.type === 'text-start' ? 'text-end' : 'reasoning-end');
      else if (part.type === 'text-end' || part.type === 'reasoning-end') open.delete(part.id);
    }
    controller.enqueue(part);
  };
  let content: ResponseContent[] | undefined; // the response as classified, recorded as answered when it all went out
  const classifyOnce = (withhold: boolean) => (classified ??= classify(sessionId, (content = streamedContent(seen)), withhold));
  const releaseHeld = () => {
    const parts = held;
    held = [];
    for (const part of parts) emit(part);
  };
  const stopTimer = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  const close = () => {
    stopTimer();
    if (gone || closed) return;
    closed = true;
    controller.close();
  };
  const fail = (error: unknown) => {
    if (gone) return;
    gone = stopped = true;
    stopTimer();
    controller.error(error); // a failing source fails this stream with the same error
  };

  const onRead = (result: ReadResult) => {
    if (stopped) return;
    try {
      if (result.done) {
        stopped = true;
        conclude(finished); // a response cut off before `finish` is classified too
        return;
      }
      const part = result.value;
      seen.push(part);
      if (text && part.type === 'text-delta' && text.watch.text(part.delta)) return void cut({ kind: 'text' });
      const route = holding ? holdRouteOf(part) : routeOf(part);
      if (route === 'pass') {
        emit(part);
        if (!holding) delivered = seen.length;
      } else if (route === 'hold') hold(part);
      else if (holding) {
        finished = part as FinishPart; // what the response said waits for its classification, at the end
        stopTimer();
      } else {
        // Classified before the held tool calls go out, so the monitor sees the response before any check of them.
        classifyOnce(false);
        releaseHeld();
        const finish = part as FinishPart;
        emit({ ...finish, providerMetadata: withSessionMetadata(finish.providerMetadata, sessionId) });
      }
      // After the chunk went on (or was held): a chanting response is cut once the chunk that completes the loop is out.
      const loop = loops ? watched(part) : null;
      if (loop) return void cut({ kind: 'loop', loop });
      void reader.read().then(onRead, fail);
    } catch (error) {
      // Nothing here is expected to throw; if it does, fail this stream rather than leave a rejection unhandled.
      fail(error);
      reader.cancel(error).catch(() => {});
    }
  };

  const hold = (part: StreamPart) => {
    held.push(part);
    if (!holding) return;
    timer ??= setTimeout(() => overflow('time'), text!.maxMs);
    heldBytes += heldBytesOf(part);
    if (heldBytes > text!.maxBytes) overflow('bytes');
  };
  /** Held past its bound: what was held goes out, and the rest streams, still watched by the patterns. */
  const overflow = (bound: 'bytes' | 'time') => {
    if (!holding || stopped || finished) return;
    holding = false;
    stopTimer();
    text!.watch.overflowed(bound);
    const parts = held;
    held = [];
    for (const part of parts) {
      if (routeOf(part) === 'hold') held.push(part); // tool calls wait for `finish` as ever
      else emit(part);
    }
    delivered = seen.length;
  };

  /** Feeds a passing chunk to the loop watch; the loop it completes, if any. */
  const watched = (part: StreamPart): LoopFinding | null => {
    if (part.type === 'text-delta') return loops!.text(part.delta);
    if (part.type === 'reasoning-delta') return loops!.reasoning(part.delta);
    return null;
  };
  /** Ends the response here: the provider stops, and the response so far is settled. */
  const cut = (why: Cut) => {
    stopped = true; // the source's pending reads are ignored from now on
    reader.cancel(new Error(why.kind === 'loop' ? `Panoptes cut the response short: ${why.loop.detail}` : 'Panoptes withheld the response.')).catch(() => {});
    conclude(undefined, why);
  };

  /**
   * The response is over (its `finish`, its end, or a cut): classified, then what it held goes out, or the
   * replacement, or a second response, and the stream closes. Without holding or a text cut, everything went out
   * already and the classification only records it.
   */
  const conclude = (finish: FinishPart | undefined, why?: Cut): void => {
    stopTimer();
    const withhold = holding || why?.kind === 'text';
    const passed = () => {
      pass(finish, why);
      close();
    };
    // One promise hop when nothing is withheld: what a classified stream paid before withholding existed.
    void classifyOnce(withhold).then((withheld) => (withheld && withhold ? withholdResponse(withheld, finish).then(close, close) : passed()), passed);
  };
  /** Settles a response that is not withheld: what was held goes out, the open blocks end, then its `finish`. */
  const pass = (finish: FinishPart | undefined, why?: Cut) => {
    if (gone) return;
    releaseHeld();
    if (why) {
      for (const [id, type] of open) emit({ type, id });
      emit(why.kind === 'loop' ? cutFinish({ panoptes: { loop: { kind: why.loop.kind, detail: why.loop.detail } } }, 'other', 'panoptes-loop') : cutFinish(undefined, 'other', 'panoptes-cut'));
    } else if (finish) emit({ ...finish, providerMetadata: withSessionMetadata(finish.providerMetadata, sessionId) });
    answered?.(content ?? streamedContent(seen));
  };
  /** A withheld response: the second one when nothing of it went out and `retry` gives one, else the replacement. */
  const withholdResponse = async (withheld: WithheldResponse, finish: FinishPart | undefined): Promise<void> => {
    held = []; // what the response held never goes out
    const sent = seen.slice(0, delivered).filter((part) => routeOf(part) !== 'hold');
    const saidSomething = sent.some((part) => part.type === 'text-delta' || part.type === 'reasoning-delta');
    const retried = text?.retry && !saidSomething && !gone ? await text.retry().catch(() => undefined) : undefined;
    if (gone) return void retried?.cancel().catch(() => {});
    if (retried) return passOn(retried);
    // Appended to the text block that was going out, so the client shows one message; else a block of its own.
    const going = [...open].findLast(([, type]) => type === 'text-end')?.[0];
    const id = going ?? 'panoptes-withheld';
    const replacement: StreamPart = { type: 'text-delta', id, delta: saidSomething ? `\n\n${withheld.userMessage}` : withheld.userMessage };
    if (going === undefined) emit({ type: 'text-start', id });
    emit(replacement);
    for (const [blockId, type] of open) emit({ type, id: blockId });
    emit(withheldFinish(finish, withheld, sessionId));
    answered?.(streamedContent([...sent, replacement]));
  };
  /** Passes the second response on, as the rest of this one (its `stream-start` aside); its failure fails this stream. */
  const passOn = async (stream: ReadableStream<StreamPart>): Promise<void> => {
    second = stream.getReader();
    try {
      for (let next = await second.read(); !next.done && !gone; next = await second.read()) {
        if (next.value.type !== 'stream-start') emit(next.value);
      }
    } catch (error) {
      fail(error);
    }
  };
  const cutFinish = (metadata: ProviderMetadata | undefined, unified: 'other', raw: string): StreamPart => ({
    type: 'finish',
    finishReason: { unified, raw },
    usage: UNKNOWN_USAGE,
    providerMetadata: withSessionMetadata(metadata, sessionId),
  });

  return new ReadableStream<StreamPart>({
    start(streamController) {
      controller = streamController;
      void reader.read().then(onRead, fail);
    },
    cancel(reason) {
      gone = stopped = true; // the pending read now resolves as done, and is ignored
      stopTimer();
      void second?.cancel(reason).catch(() => {});
      return reader.cancel(reason);
    },
  });
}
