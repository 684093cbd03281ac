/**
 * What the monitor does to one proxied call, framework-free: before it (interventions edit the request, or a hard
 * block refuses it) and after it (the response is classified, and each tool call is checked before the client sees
 * it). The server and the stream gate call these; the in-process adapters make the same monitor calls.
 * @module
 */
import type { Monitor, ToolGuard, WithheldResponse } from '../monitor/index.js';
import { appendToSystem, type RenderedIntervention } from '../intervene/index.js';
import type { AssistantTurn, ChatMessage, ToolCall } from '../messages/index.js';
import { lazyModelRequest } from '../monitor/index.js';
import { DEFAULT_REFUSAL_MESSAGE } from './defaults.js';
import { proxyError, type ProxyError } from './errors.js';
import type { ChatCompletionRequest } from './openai-types.js';
import { toChatMessages, withEdits } from './translate.js';

/** What to do with a request: send it (edited when interventions apply) or refuse it. */
export type BeforeCall<Body = ChatCompletionRequest> =
  | { action: 'proceed'; body: Body; interventions: RenderedIntervention[] }
  | { action: 'block'; error: ProxyError; intervention: RenderedIntervention };

/**
 * How a request format is read and edited: its history as the core's messages, and the body with the monitor's
 * edits to them carried over. Chat completions are the default.
 */
export interface RequestEditing<Body> {
  messages(body: Body): ChatMessage[];
  edited(body: Body, chat: readonly ChatMessage[], edited: readonly ChatMessage[]): Body;
}

const CHAT_EDITING: RequestEditing<ChatCompletionRequest> = {
  messages: (body) => toChatMessages(body.messages),
  edited: (body, chat, edited) => ({ ...body, messages: withEdits(body.messages, chat, edited) }),
};

/**
 * Runs `beforeModel` for a request: the interventions due edit a copy of the body (the messages are converted only
 * when something is due); a hard block (a `block:` intervention, a critical violation, a loop that reached `stop`)
 * becomes a 403 `panoptes_violation` error whose message is the intervention's text.
 */
export async function beforeCall<Body = ChatCompletionRequest>(monitor: Monitor, sessionId: string, body: Body, editing: RequestEditing<Body> = CHAT_EDITING as unknown as RequestEditing<Body>, context?: () => string | undefined): Promise<BeforeCall<Body>> {
  let chat: ChatMessage[] | undefined;
  const messages = () => (chat ??= editing.messages(body));
  const before = await monitor.beforeModel(sessionId, lazyModelRequest(messages));
  if (before.action === 'block') {
    const code = before.error.code === 'LOOP_DETECTED' ? 'loop_detected' : 'workflow_blocked';
    return { action: 'block', intervention: before.intervention, error: proxyError(403, 'panoptes_violation', code, before.intervention.text) };
  }
  // What the rules know goes after the guidance, in the system prompt, as the in-process hosts put it.
  const known = context?.();
  if (before.interventions.length === 0 && known === undefined) return { action: 'proceed', body, interventions: [] };
  const guided = before.interventions.length === 0 ? messages() : before.messages;
  return { action: 'proceed', body: editing.edited(body, messages(), known === undefined ? guided : appendToSystem(guided, known)), interventions: before.interventions };
}

/**
 * A tool call the monitor refused: taken out of the response, the user-facing `message` in its place; its `reason`
 * reaches the model as guidance on the session's next call.
 */
export interface RefusedToolCall {
  id?: string;
  name: string;
  /** Why, written for the model ("The call to X was refused ..."). */
  reason: string;
  /** What the client's user reads in the call's place: the guard's question, when it waits on one. @default the proxy's `refusalMessage` */
  message?: string;
  constraints: string[];
  /** Its position in the turn's `toolCalls`, when a check of that turn refused it (ids and names can repeat). */
  index?: number;
}

/**
 * Runs `afterModel` on a complete response turn, then `beforeTool` on each of its tool calls in order: the
 * pre-emptive check, so a call whose state would break a critical constraint is refused (and recorded as a refused
 * attempt) before the client can execute it; `guard`, when given, is asked about each call the workflow allows.
 * Returns the refused calls; the others entered their states.
 *
 * With `withheld` (an answer the client has not seen yet), a response that must not reach the user is withheld
 * instead (`afterModel`'s `withhold`): `withheld` is told what replaces it, and every call of the turn is refused.
 */
export async function checkTurn(monitor: Monitor, sessionId: string, turn: AssistantTurn, guard?: ToolGuard, withheld?: (response: WithheldResponse) => void): Promise<RefusedToolCall[]> {
  const after = await monitor.afterModel(sessionId, turn, withheld ? { withhold: true } : undefined);
  if (withheld && after.withheld) {
    withheld(after.withheld);
    return refusedAll(turn.toolCalls, 'the response that made it was withheld');
  }
  const refused: RefusedToolCall[] = [];
  for (const [index, call] of turn.toolCalls.entries()) {
    const decision = await monitor.beforeTool(sessionId, call, guard ? { guard } : undefined);
    if (decision.action === 'deny') {
      const message = decision.userMessage === undefined ? {} : { message: decision.userMessage };
      refused.push({ ...(call.id === undefined ? {} : { id: call.id }), name: call.name, reason: decision.reason, ...message, constraints: decision.constraints, index });
    }
  }
  return refused;
}

/** Every call of a turn refused for one reason (`why`, finishing "The call to X was refused: ..."), by position. */
export function refusedAll(calls: readonly ToolCall[], why: string): RefusedToolCall[] {
  return calls.map((call, index) => ({ ...(call.id === undefined ? {} : { id: call.id }), name: call.name, reason: `The call to ${call.name} was refused: ${why}, so it did not run.`, constraints: [], index }));
}

/**
 * The text that replaces refused tool calls in the response, what a chat UI shows the user: their user-facing
 * messages, each once. Never the reasons, which name the rules (they reach the model on the next call).
 */
export function refusalText(refused: readonly RefusedToolCall[]): string {
  return [...new Set(refused.map((call) => call.message ?? DEFAULT_REFUSAL_MESSAGE))].join('\n');
}

/** The reasons of refused calls as the model reads them where a tool result answers them. */
export function refusalReasons(refused: readonly RefusedToolCall[]): string {
  return refused.map((call) => `[Panoptes] ${call.reason}`).join('\n');
}

/** Whether `call` (a response tool call, by id, else by name) is among the refused. */
export function isRefused(refused: readonly RefusedToolCall[], call: { id?: unknown; function?: { name?: unknown } }): boolean {
  return refused.some((entry) => (entry.id !== undefined && entry.id === call.id) || (entry.id === undefined && entry.name === call.function?.name));
}

/**
 * The turn as the client receives it once the refused calls are taken out: the refusal text after its content (as the
 * proxy writes it, streamed or not) and the allowed calls. What the client sends back as the
 * assistant message of its next request, so what a conversation is placed by.
 */
export function deliveredTurn(turn: AssistantTurn, refused: readonly RefusedToolCall[]): AssistantTurn {
  if (refused.length === 0) return turn;
  const text = refusalText(refused);
  return {
    content: turn.content === '' ? text : `${turn.content}\n\n${text}`,
    toolCalls: turn.toolCalls.filter((call) => !isRefused(refused, { id: call.id, function: { name: call.name } })),
  };
}

/**
 * Whether a withheld response is refused with a 403 rather than replaced: a constraint that withholds it has a
 * `block:` intervention.
 */
export function withheldByBlock(monitor: Monitor, withheld: WithheldResponse): boolean {
  const { workflow } = monitor;
  return withheld.constraints.some((name) => {
    const constraint = workflow.definition.constraints.find((candidate) => candidate.name === name);
    return constraint?.intervention !== undefined && workflow.intervention(constraint.intervention)?.strategy === 'hard-block';
  });
}

/** The 403 that answers a withheld response refused by a `block:` intervention: its message is the user's. */
export function withheldError(withheld: WithheldResponse): ProxyError {
  return proxyError(403, 'panoptes_violation', 'workflow_blocked', withheld.userMessage);
}
