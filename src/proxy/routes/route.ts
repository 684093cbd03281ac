/**
 * What a generation route tells the monitored pipeline (generation.ts): how its requests are checked, named, read as
 * the core's messages and edited, and how its answers are read, JSON or streamed. The pipeline itself (placement,
 * interventions, the upstream call, reading the answer by what it is, deciding its calls, recording it) is the same
 * for every route, so each route has the same guarantees.
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { LoopFinding, StreamWatch } from '../../loops/index.js';
import type { AssistantTurn, ChatMessage } from '../../messages/index.js';
import type { TextWatch } from '../../monitor/index.js';
import type { FoundCall } from '../answer-calls.js';
import type { RefusedToolCall } from '../enforce.js';
import type { ErrorFormat, ProxyError } from '../errors.js';
import type { MonitoredRoute } from '../request-path.js';
import type { SessionSource } from '../session-id.js';
import type { StreamEnd } from '../stream-gate.js';

/** A request body, parsed: a JSON object. */
export type RequestBody = Record<string, unknown>;

/** The refused calls of one answer, each with why (as `decideCalls` returns them). */
export type Refusals = ReadonlyMap<FoundCall, RefusedToolCall>;

/** A session a request names. */
export interface NamedSession {
  sessionId: string;
  source: SessionSource;
}

/** A JSON answer, read: its calls to decide and its text to classify; once decided, what the client gets. */
export interface ReadAnswer {
  calls: FoundCall[];
  content: string;
  /** The answer without its refused calls, as the JSON text the client gets (written again, never the upstream's bytes). */
  json(refused: Refusals): string;
  /** The same answer as the events of a stream, for a client that asked for one. */
  events(refused: Refusals): string;
  /** The answer as the client receives it, as the conversation's next request carries it back (for placement). */
  delivered(refused: Refusals): AssistantTurn;
  /** The answer's own id, when requests can continue it by id (a Responses API response). */
  id?: string;
  /**
   * The answer with its text replaced by `text` and no calls left: what the client gets of an answer the monitor
   * withheld (its first choice only, finishing as filtered content where the format has such a reason).
   */
  withheld(text: string): ReadAnswer;
}

/**
 * Reads one streamed answer, event by event: `push` takes each data event and returns what may go to the client now;
 * the calls wait, and `release` returns the rest once they are decided. See `StreamGate` (chat completions).
 */
export interface AnswerGate {
  push(data: string): string | undefined;
  /** Whether the answer ended (nothing more is read). */
  readonly done: boolean;
  /** Data events dropped because they could not be read. */
  readonly malformed: number;
  readonly end: StreamEnd;
  /** The text to classify. */
  readonly text: string;
  /** Set when the held text outgrew its limit: no call can be checked whole, so all are refused. */
  readonly overflow: boolean;
  /** The loop the stream was cut short for, if any. */
  readonly loop: LoopFinding | undefined;
  /** Every call of the answer, once it ended; none for an answer cut off (they may be incomplete, and are never released). */
  calls(): FoundCall[];
  /** What was held, with the refused calls replaced by why; then the end of the stream. */
  release(refused: Refusals): string;
  /** As {@link ReadAnswer.delivered}. */
  delivered(refused: Refusals): AssistantTurn;
  /** As {@link ReadAnswer.id}, once the answer ended. */
  readonly id?: string | undefined;
  /** Set when the answer was cut because its text matched a state the monitor would withhold (gates given a `textWatch`). */
  readonly textCut?: { state: string; pattern: string } | undefined;
  /** The end of a stream cut for its text: `text` (the replacement, when withheld), then a finish. */
  releaseCut?(text: string | undefined): string;
  /** The answer as the client received it from a stream cut for its text, ended with `text`. */
  deliveredCut?(text: string | undefined): AssistantTurn;
  /** Whether nothing of the text went out yet (held for the classification, `holdText`). */
  readonly holding?: boolean;
  /** Stops holding past a bound: what was held, to send now. */
  flushHeld?(bound: 'bytes' | 'time'): string | undefined;
}

/** Limits, the loop watch and the text watch of one stream gate. */
export interface GateOptions {
  maxHeldChars: number;
  watch?: StreamWatch;
  /** The monitor's watch over the text (`monitor.watchText`): a gate that takes it cuts a response that would be withheld. */
  textWatch?: TextWatch;
  /** With a `textWatch`: hold the text until the response is classified, within these bounds (`text_policy: hold`). */
  holdText?: { maxChars: number; maxMs: number };
}

/** The tools a request offers: names for the offered-name check (`undefined`: no check), and for the loop detector. */
export interface OfferedTools {
  names: ReadonlySet<string> | undefined;
  available: string[] | undefined;
}

/**
 * A request continued by reference: the Responses API's `previous_response_id`. `sessionId` is the session of the
 * response it continues, when the proxy recorded it; `body` is the request to send (with the answers to calls the
 * proxy withheld from that response).
 */
export interface Continuation<Body> {
  sessionId: string | undefined;
  body: Body;
}

/** One monitored generation route. */
export interface GenerationRoute<Body extends RequestBody = RequestBody> {
  readonly path: MonitoredRoute;
  /** What a request is called in error messages: `chat completion`. */
  readonly label: string;
  /** Where else than the headers a request of this route names its session, for the error that asks for one. */
  readonly namedBy?: string;
  /** The shape of the errors the proxy answers on this route. */
  readonly errors: ErrorFormat;
  /** Why the body is not a request the proxy can monitor (a 400), or `undefined`. */
  problem(body: RequestBody): ProxyError | undefined;
  /** The session the request names (headers, metadata, ...), or `undefined`. */
  namedSession(headers: IncomingHttpHeaders, body: Body): NamedSession | undefined;
  /** A request that continues an earlier answer by its id, or `undefined`. */
  continuation?(body: Body): Promise<Continuation<Body> | undefined>;
  /** The request's history as the core's messages: for placement, and for the interventions. */
  messages(body: Body): ChatMessage[];
  /** The body with the monitor's edits (`edited`, made from `chat`, which `messages` returned) carried over. */
  edited(body: Body, chat: readonly ChatMessage[], edited: readonly ChatMessage[]): Body;
  offered(body: Body): OfferedTools;
  /** Reads a JSON answer, or says why it cannot be read (then it is withheld). */
  read(text: string): ReadAnswer | { unreadable: string };
  /** A gate for one streamed answer. */
  gate(options: GateOptions): AnswerGate;
  /** Set when the route's answers cannot carry tool calls: every call found is refused for this reason. */
  readonly noCalls?: string;
  /** Called once an answer with an id is decided, before the client gets it (the Responses API records it). */
  answered?(id: string, sessionId: string, refused: Refusals): Promise<void>;
}
