import type { ChatMessage } from '../messages/index.js';
import type { InterventionStrategy } from '../workflow/types.js';

/** An intervention ready to apply: its strategy and its rendered text. */
export interface RenderedIntervention {
  /** Intervention name, or `constraint:<name>` for the built-in guidance of a constraint with none. */
  name: string;
  strategy: InterventionStrategy;
  text: string;
}

export const GUIDANCE_HEADER = '[WORKFLOW GUIDANCE]';
export const SYSTEM_NOTE_PREFIX = '[System Note]';
export const REMINDER_PREFIX = '[Context Reminder]';

/**
 * Applies interventions to a copy of `messages` and returns it; the input is never mutated.
 *
 * The result stays valid for every provider: tool results stay directly after the assistant message that called
 * them (nothing is inserted between), and the conversation never ends with an assistant message (which some
 * providers reject and others treat as a prefill the model must continue). `hard-block` interventions are not
 * applied here: the caller refuses the call instead.
 *
 * @example
 * applyInterventions(messages, [{ name: 'verify', strategy: 'system-prompt-append', text: 'Verify identity first.' }])
 */
export function applyInterventions(messages: readonly ChatMessage[], interventions: readonly RenderedIntervention[]): ChatMessage[] {
  const byStrategy = (strategy: InterventionStrategy) =>
    interventions.filter((intervention) => intervention.strategy === strategy).map((intervention) => intervention.text);
  let result = [...messages];
  const guidance = byStrategy('system-prompt-append');
  if (guidance.length > 0) result = appendToSystem(result, `${GUIDANCE_HEADER}\n${guidance.join('\n\n')}`);
  const reminders = byStrategy('context-reminder');
  if (reminders.length > 0) result = addReminder(result, `${REMINDER_PREFIX} ${reminders.join('\n\n')}`);
  const notes = byStrategy('user-message-inject');
  if (notes.length > 0) result = appendUserMessage(result, `${SYSTEM_NOTE_PREFIX} ${notes.join('\n\n')}`);
  return result;
}

/**
 * The messages with a block of text at the end of the system message (the first one), or in a new system message at
 * the front when there is none. Only that message is new; every other is the caller's own object.
 * @example
 * appendToSystem([{ role: 'user', content: 'Hi' }], '[KNOWN FACTS]\n...') // [{ role: 'system', content: '[KNOWN FACTS]\n...' }, { role: 'user', content: 'Hi' }]
 */
export function appendToSystem(messages: readonly ChatMessage[], block: string): ChatMessage[] {
  const index = messages.findIndex((message) => message.role === 'system');
  if (index === -1) return [{ role: 'system', content: block }, ...messages];
  const system = messages[index]!;
  const content = system.content.length > 0 ? `${system.content}\n\n${block}` : block;
  return messages.map((message, i) => (i === index ? { ...system, content } : message));
}

/**
 * A reminder rides on the latest user turn when the conversation ends with one, so the model reads it as context
 * of that turn; otherwise (the conversation ends with tool results or an assistant message) it becomes a user
 * message of its own at the end, after every tool result.
 */
function addReminder(messages: ChatMessage[], text: string): ChatMessage[] {
  const last = messages.at(-1);
  if (last?.role === 'user') return [...messages.slice(0, -1), { ...last, content: `${last.content}\n\n${text}` }];
  return appendUserMessage(messages, text);
}

/** Appends at the very end: after the last tool result, so no assistant/tool pair is split, and no assistant message is last. */
function appendUserMessage(messages: ChatMessage[], content: string): ChatMessage[] {
  return [...messages, { role: 'user', content }];
}
