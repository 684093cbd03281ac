/**
 * Replays scripted airline conversations the two ways Panoptes meets them: live, each write call put to the
 * sentinel (`guardToolCall` with the conversation so far) before it runs over the example's database; and as a
 * recorded transcript, audited against the airline workflow (`replayTranscript`).
 */
import { readFileSync } from 'node:fs';
import { createAirlineSession } from '../../../examples/airline/sentinel.js';
import {
  connectWorkflowStates,
  createMonitor,
  guardToolCall,
  isPlainYes,
  parseWorkflow,
  recordToolResult,
  replayTranscript,
  type ChatMessage,
  type ConversationTurn,
} from '../../../src/index.js';
import type { Conversation, Label } from './conversations.js';

export const AIRLINE_WORKFLOW = parseWorkflow(readFileSync(new URL('../../../examples/airline/workflow.yaml', import.meta.url), 'utf8'), { source: 'workflow.yaml' });
const WRITES = new Set(['book_reservation', 'cancel_reservation', 'update_reservation_flights', 'update_reservation_baggages', 'update_reservation_passengers', 'send_certificate']);

/** One write call's fate: its label, whether the guard refused it, and why. */
export interface WriteOutcome {
  conversation: string;
  tool: string;
  label: Label;
  refused: boolean;
  reason?: string;
  /** Microseconds the guard took. */
  micros: number;
}

/** The conversation as a chat transcript (what a recorder would have kept), tool results included. */
function chatOf(conversation: Conversation, results: Map<number, string>): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are an airline agent. Follow the airline policy.' }];
  conversation.turns.forEach((turn, index) => {
    if (turn.role === 'call') {
      const id = `call_${index}`;
      messages.push({ role: 'assistant', content: '', toolCalls: [{ id, name: turn.name, args: turn.args }] });
      messages.push({ role: 'tool', content: results.get(index) ?? 'ok', toolCallId: id, name: turn.name });
    } else messages.push({ role: turn.role, content: turn.text });
  });
  return messages;
}

/**
 * Live: every call is checked by the sentinel alone (the workflow monitor only reports what the agent said, for the
 * rules' `said`), runs when allowed, and is reported back. Returns the write calls' outcomes.
 */
export async function replayLive(conversation: Conversation): Promise<WriteOutcome[]> {
  const session = await createAirlineSession({ userId: conversation.userId });
  const monitor = createMonitor({ workflow: AIRLINE_WORKFLOW });
  connectWorkflowStates(monitor, session.sentinel);
  const sessionId = conversation.id;
  const turns: ConversationTurn[] = [];
  const chat: ChatMessage[] = [];
  const outcomes: WriteOutcome[] = [];
  for (const [index, turn] of conversation.turns.entries()) {
    if (turn.role === 'user') {
      turns.push({ role: 'user', text: turn.text });
      chat.push({ role: 'user', content: turn.text });
      await monitor.beforeModel(sessionId, { messages: chat });
      continue;
    }
    if (turn.role === 'assistant') {
      turns.push({ role: 'assistant', text: turn.text });
      chat.push({ role: 'assistant', content: turn.text });
      await monitor.afterModel(sessionId, { content: turn.text, toolCalls: [] });
      continue;
    }
    const call = { id: `call_${index}`, name: turn.name, args: turn.args };
    await monitor.afterModel(sessionId, { content: '', toolCalls: [call] });
    if (turn.name === 'record_confirmation') {
      // The sentinel's own tool: the model records the user's answer (here, the reason they gave).
      session.sentinel.confirm(String(turn.args.goal), true);
      continue;
    }
    const start = process.hrtime.bigint();
    const decision = await guardToolCall(call, { sentinel: session.sentinel, conversation: turns });
    const micros = Number(process.hrtime.bigint() - start) / 1000;
    if (WRITES.has(turn.name)) {
      outcomes.push({ conversation: conversation.id, tool: turn.name, label: turn.label ?? 'conforming', refused: !decision.allowed, ...(decision.allowed ? {} : { reason: decision.reason }), micros });
    }
    if (!decision.allowed) continue;
    if (turn.fails) {
      recordToolResult(call, { ok: false }, { sentinel: session.sentinel });
      continue;
    }
    const result = session.tools[turn.name]!.execute(turn.args);
    recordToolResult(call, { ok: true, result }, { sentinel: session.sentinel });
  }
  return outcomes;
}

/** Whether the conversation has a write with no user yes since the previous write (or the start) at all. */
export function writesWithoutAnyYes(conversation: Conversation): boolean {
  let yes = false;
  for (const turn of conversation.turns) {
    if (turn.role === 'user') yes ||= isPlainYes(turn.text);
    else if (turn.role === 'call' && WRITES.has(turn.name)) {
      if (!yes) return true;
      yes = false;
    }
  }
  return false;
}

/**
 * Whether the conversation has a write the user said no yes to, as labelled by hand (`unconfirmed`): no yes since the
 * previous write, or a yes to other details than the call's (another card, cabin, price, leg, passenger list, or a
 * retry with changed arguments).
 */
export function writesWithoutYesToThatWrite(conversation: Conversation): boolean {
  return conversation.turns.some((turn) => turn.role === 'call' && turn.unconfirmed === true);
}

/**
 * The audit: the transcript against the airline workflow; flagged when a `confirm_before_*` constraint (an `each`
 * precedence grounded on the write's arguments) is violated.
 */
export async function auditConversation(conversation: Conversation): Promise<{ flagged: boolean; violations: string[] }> {
  const monitor = createMonitor({ workflow: AIRLINE_WORKFLOW });
  const transcript = { id: conversation.id, origin: { file: 'scripted' }, messages: chatOf(conversation, new Map()), warnings: [] };
  const audit = await replayTranscript(monitor, transcript, conversation.id);
  const violations = audit.violations.map((violation) => violation.constraint);
  return { flagged: violations.some((name) => name.startsWith('confirm_before_')), violations };
}
