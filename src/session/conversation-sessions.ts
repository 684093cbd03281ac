import { InvalidOptionError } from '../errors/index.js';
import { hashString } from '../hash/cyrb53.js';
import { canonicalJson } from '../loops/canonical-json.js';
import type { AssistantTurn, ChatMessage } from '../messages/index.js';

/** Options of {@link createConversationSessions}. */
export interface ConversationSessionsOptions {
  /**
   * Conversation ends (answers a later request may continue) and conversations remembered; past it the least
   * recently used are forgotten, so memory stays bounded. A request continuing a forgotten end starts a new session.
   * @default 10_000
   */
  limit?: number;
  /** Makes the id of a new session. @default `conversation-` and a random UUID */
  newSessionId?: () => string;
}

/**
 * Sessions of conversations that name none (no thread id, no session id): each model call's request is placed in
 * the session whose recorded history it continues.
 *
 * A session records each answer: the history of the request it answered plus the answer. A later request whose
 * history starts with such a recorded history continues that session; a request that continues none starts a new
 * one. An answer can be continued once: a second request continuing the same answer (a second customer whose
 * conversation so far is word for word the first's, a retry, a regenerated reply) gets a session of its own, a copy
 * of the state the first found there (`forkSource`). So two conversations share a session only while their
 * histories are identical, and nothing one does after they differ reaches the other.
 *
 * System messages are not part of a conversation's history here: interventions and fact summaries edit the system
 * prompt of each call, and some hosts (`createAgent`) keep it outside the messages a tool sees.
 * @template Snapshot what the owner (the monitor) keeps of a session, so a fork can start from it.
 */
export interface ConversationSessions<Snapshot = unknown> {
  /**
   * The session of a model call whose request carries these messages (its whole history, oldest first). Call it
   * once per model call, before the call, with the request as the app sent it (without Panoptes' edits).
   */
  sessionOf(messages: readonly ChatMessage[]): string;
  /**
   * Records the model's answer to the request `sessionOf` last placed in `sessionId`: a later request whose history
   * starts with that request and this answer continues the session. The answer's tool calls are remembered by id
   * for {@link ConversationSessions.sessionOfToolCall}. Only the first answer to a request is recorded. Call it once
   * the monitor has classified the answer (`afterModel` settled), so a request continuing it finds that step done.
   */
  answered(sessionId: string, turn: AssistantTurn): void;
  /** The session whose answer asked for this tool call, or `undefined`. */
  sessionOfToolCall(toolCallId: string): string | undefined;
  /**
   * The session whose recorded history these messages end with (or start with, the longest such), without
   * continuing it: what a hook that runs after the model (a report at the end of a run) reads.
   */
  sessionEndingWith(messages: readonly ChatMessage[]): string | undefined;
  /**
   * The session of the answer these messages end with (their last assistant message): the one that recorded it, or,
   * when nobody recorded it (a graph whose model node Panoptes does not wrap), the session the answer's request
   * belongs to, with the answer recorded now. For hooks that see a tool call but not the model call before it.
   */
  sessionOfAnswer(messages: readonly ChatMessage[]): string;
  /** Keeps the latest state of a session this registry placed, for forks of it. */
  keep(sessionId: string, snapshot: Snapshot): void;
  /** For a session made as a fork: the state it starts from, until the session keeps a state of its own. */
  forkSource(sessionId: string): Snapshot | undefined;
}

export const DEFAULT_CONVERSATION_LIMIT = 10_000;

/** Characters of one message's text that identify it; a longer text is known by this much and its length. */
const MESSAGE_TEXT_LIMIT = 65_536;

interface End<Snapshot> {
  sessionId: string;
  /** Set when a request continued this answer; a later one forks from `snapshot`. */
  continued: boolean;
  snapshot?: Snapshot;
}

interface Conversation<Snapshot> {
  /** The history hash of the request in flight, until it is answered. */
  request?: string;
  latest?: Snapshot;
  /** The state a fork starts from, until the owner reads it. */
  fork?: Snapshot;
}

/**
 * Creates the registry of conversation sessions. A monitor has one (`monitor.conversations`), which also copies
 * state into forks; adapters use it whenever a call names no session.
 * @throws {InvalidOptionError} when `limit` is not a positive whole number.
 * @example
 * const conversations = createConversationSessions();
 * const sessionId = conversations.sessionOf(messages);
 * // ... call the model ...
 * conversations.answered(sessionId, { content: answer, toolCalls: [] });
 */
export function createConversationSessions<Snapshot = unknown>({
  limit = DEFAULT_CONVERSATION_LIMIT,
  newSessionId = () => `conversation-${globalThis.crypto.randomUUID()}`,
}: ConversationSessionsOptions = {}): ConversationSessions<Snapshot> {
  if (!Number.isInteger(limit) || limit <= 0) throw new InvalidOptionError({ parameter: 'limit', value: limit, fix: 'Pass a positive whole number; the default is 10000.' });
  const ends = new Map<string, End<Snapshot>>();
  const conversations = new Map<string, Conversation<Snapshot>>();
  const toolCalls = new Map<string, string>();

  const conversation = (sessionId: string): Conversation<Snapshot> => {
    let found = conversations.get(sessionId);
    if (found) conversations.delete(sessionId);
    found ??= {};
    remember(conversations, sessionId, found, limit);
    return found;
  };

  /** The longest recorded answer the history ends with or passes through: its index in `hashes` and its entry. */
  function longestEnd(messages: readonly ChatMessage[], hashes: readonly string[]): End<Snapshot> | undefined {
    for (let index = messages.length - 1; index >= 0; index--) {
      if (messages[index]!.role !== 'assistant') continue;
      const end = ends.get(hashes[index]!);
      if (end) return end;
    }
    return undefined;
  }

  return {
    sessionOf(messages) {
      const hashes = historyHashes(messages);
      const request = hashes.at(-1) ?? EMPTY_HISTORY;
      const end = longestEnd(messages, hashes);
      if (end && !end.continued) {
        end.continued = true;
        const continued = conversation(end.sessionId);
        end.snapshot = continued.latest;
        continued.request = request;
        return end.sessionId;
      }
      const sessionId = newSessionId();
      const started = conversation(sessionId);
      started.request = request;
      if (end?.snapshot !== undefined) started.fork = end.snapshot;
      return sessionId;
    },

    answered(sessionId, turn) {
      const answering = conversations.get(sessionId);
      if (answering?.request === undefined) return;
      const end = answerHash(answering.request, turn);
      delete answering.request;
      ends.delete(end);
      remember(ends, end, { sessionId, continued: false }, limit);
      for (const call of turn.toolCalls) if (call.id !== undefined) remember(toolCalls, call.id, sessionId, limit);
    },

    sessionOfToolCall: (toolCallId) => toolCalls.get(toolCallId),

    sessionEndingWith(messages) {
      return longestEnd(messages, historyHashes(messages))?.sessionId;
    },

    sessionOfAnswer(messages) {
      const last = messages.findLastIndex((message) => message.role === 'assistant');
      if (last === -1) return this.sessionOf(messages);
      const recorded = ends.get(historyHashes(messages.slice(0, last + 1)).at(-1)!);
      if (recorded) return recorded.sessionId;
      const answer = messages[last] as Extract<ChatMessage, { role: 'assistant' }>;
      const sessionId = this.sessionOf(messages.slice(0, last));
      this.answered(sessionId, { content: answer.content, toolCalls: answer.toolCalls ?? [] });
      return sessionId;
    },

    keep(sessionId, snapshot) {
      const kept = conversations.get(sessionId);
      if (!kept) return;
      kept.latest = snapshot;
      delete kept.fork; // the session has a state of its own now
    },

    forkSource: (sessionId) => conversations.get(sessionId)?.fork,
  };
}

/** The hash of a history with no messages. */
export const EMPTY_HISTORY = 'history-0';

/**
 * The history hash after each message (system messages leave it unchanged), each chained on the one before: two
 * histories have the same hash at a position only if they are the same up to it. Shared with the registries that
 * keep conversation sessions outside this process (the Redis store), so every process computes the same keys.
 */
export function historyHashes(messages: readonly ChatMessage[]): string[] {
  const hashes = new Array<string>(messages.length);
  let hash = EMPTY_HISTORY;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role !== 'system') hash = chain(hash, messageKey(message));
    hashes[index] = hash;
  }
  return hashes;
}

/**
 * What identifies a message in a history: its role, its text (bounded, trimmed), and an assistant's tool calls by
 * id, name and canonical arguments. Provider tool-call ids are unique per response, so two conversations that
 * called the same tool with the same arguments are told apart by them, and every host carries an answer's ids into
 * the next request (they link the tool results to their calls).
 */
function messageKey(message: ChatMessage): string {
  const text = message.content.length > MESSAGE_TEXT_LIMIT ? `${message.content.length}:${message.content.slice(0, MESSAGE_TEXT_LIMIT)}` : message.content;
  const key = `${message.role}\u0000${text.trim()}`;
  if (message.role !== 'assistant' || !message.toolCalls || message.toolCalls.length === 0) return key;
  return `${key}\u0000${message.toolCalls.map((call) => `${call.id ?? ''}:${call.name}(${canonicalJson(call.args)})`).join('\u0000')}`;
}

/** The history hash of a request's history (`requestHash`) followed by the model's answer to it. */
export function answerHash(requestHash: string, turn: AssistantTurn): string {
  return chain(requestHash, messageKey({ role: 'assistant', content: turn.content, toolCalls: turn.toolCalls }));
}

/** Two 53-bit lanes of cyrb53 over the previous hash and the message: collisions between live histories are negligible. */
function chain(previous: string, key: string): string {
  const text = `${previous}\u0001${key}`;
  return hashString(text, 0x9e3779b9).toString(36) + '.' + hashString(text, 0x85ebca6b).toString(36);
}

/** Sets `key` as the most recently used entry, forgetting the least recently used past `limit`. */
function remember<Value>(map: Map<string, Value>, key: string, value: Value, limit: number): void {
  map.set(key, value);
  if (map.size > limit) map.delete(map.keys().next().value!);
}

const registries = new WeakMap<object, ConversationSessions>();

/**
 * The registry of conversation sessions an adapter uses for calls that name no session: the monitor's own (which
 * copies state into forks), else one per `owner` (a sentinel, a monitor made elsewhere), so every hook of one agent
 * finds the same sessions.
 * @example
 * const sessionId = conversationSessionsOf(monitor).sessionOf(messages);
 */
export function conversationSessionsOf(owner: object): ConversationSessions {
  const own = (owner as { conversations?: ConversationSessions }).conversations;
  if (own && typeof own.sessionOf === 'function') return own;
  let registry = registries.get(owner);
  if (!registry) registries.set(owner, (registry = createConversationSessions()));
  return registry;
}
