import type { ChatMessage } from '../messages/index.js';
import type { InterventionStrategy } from '../workflow/types.js';
import { defineInterventionStrategy, type InterventionStrategyDef } from './define-strategy.js';

/** An intervention ready to apply: its strategy and its rendered text. */
export interface RenderedIntervention {
  /** Intervention name, or `constraint:<name>` for the built-in guidance of a constraint with none. */
  name: string;
  strategy: InterventionStrategy;
  text: string;
  /** The intervention's checked `options`, for a registered strategy that takes them. */
  options?: unknown;
}

export const GUIDANCE_HEADER = '[WORKFLOW GUIDANCE]';
export const SYSTEM_NOTE_PREFIX = '[System Note]';
export const REMINDER_PREFIX = '[Context Reminder]';

/** Looks a strategy up by name: a registry's `strategy`, or the built-ins alone. */
export type StrategyLookup = (name: string) => InterventionStrategyDef<any> | undefined;

/**
 * The four built-in strategies, made by `defineInterventionStrategy` like a registered one. `hard-block` is never
 * applied: the caller refuses the call instead.
 */
export const BUILT_IN_STRATEGIES: Readonly<Record<'system-prompt-append' | 'context-reminder' | 'user-message-inject' | 'hard-block', InterventionStrategyDef>> = Object.freeze({
  'system-prompt-append': defineInterventionStrategy({
    name: 'system-prompt-append',
    description: 'Appended to the system message under a guidance header.',
    apply: (messages, items) => appendToSystem(messages, `${GUIDANCE_HEADER}\n${texts(items)}`),
  }),
  'context-reminder': defineInterventionStrategy({
    name: 'context-reminder',
    description: 'A reminder on the latest user turn, or a user message of its own at the end.',
    apply: (messages, items) => addReminder([...messages], `${REMINDER_PREFIX} ${texts(items)}`),
  }),
  'user-message-inject': defineInterventionStrategy({
    name: 'user-message-inject',
    description: "A note in the user's voice at the very end.",
    apply: (messages, items) => appendUserMessage([...messages], `${SYSTEM_NOTE_PREFIX} ${texts(items)}`),
  }),
  'hard-block': defineInterventionStrategy({ name: 'hard-block', description: 'Refuses the model call.', apply: (messages) => [...messages] }),
});

/** The built-in strategies only. */
export const builtInStrategy: StrategyLookup = (name) => (Object.hasOwn(BUILT_IN_STRATEGIES, name) ? BUILT_IN_STRATEGIES[name as keyof typeof BUILT_IN_STRATEGIES] : undefined);

/** The built-ins apply in this order (gentlest first); registered strategies after them, in order of appearance. */
const BUILT_IN_ORDER = ['system-prompt-append', 'context-reminder', 'user-message-inject'];

/** Options of `applyInterventions`. */
export interface ApplyInterventionsOptions {
  /** Where strategies are looked up: a registry's `strategy`. @default the built-ins */
  strategies?: StrategyLookup;
  /** Told when a registered strategy throws or is unknown; its interventions are then left out (fail-open). */
  onError?: (strategy: string, error: unknown) => void;
}

/**
 * Applies interventions to a copy of `messages` and returns it; the input is never mutated.
 *
 * The result stays valid for every provider: tool results stay directly after the assistant message that called
 * them (nothing is inserted between), and the conversation never ends with an assistant message (which some
 * providers reject and others treat as a prefill the model must continue). `hard-block` interventions are not
 * applied here: the caller refuses the call instead. Each strategy receives all of its interventions at once.
 *
 * @example
 * applyInterventions(messages, [{ name: 'verify', strategy: 'system-prompt-append', text: 'Verify identity first.' }])
 */
export function applyInterventions(messages: readonly ChatMessage[], interventions: readonly RenderedIntervention[], { strategies = builtInStrategy, onError }: ApplyInterventionsOptions = {}): ChatMessage[] {
  const order = [...BUILT_IN_ORDER];
  for (const { strategy } of interventions) if (strategy !== 'hard-block' && !order.includes(strategy)) order.push(strategy);
  let result = [...messages];
  for (const name of order) {
    const items = interventions.filter((intervention) => intervention.strategy === name).map(({ name: label, text, options }) => ({ name: label, text, options }));
    if (items.length === 0) continue;
    const strategy = strategies(name) ?? builtInStrategy(name);
    if (!strategy) {
      onError?.(name, new Error(`unknown intervention strategy '${name}'`));
      continue;
    }
    if (builtInStrategy(name) === strategy) {
      result = strategy.apply(result, items);
      continue;
    }
    try {
      const applied = strategy.apply(result, items);
      if (!Array.isArray(applied)) throw new Error(`strategy '${name}' returned ${typeof applied}, not an array of messages`);
      result = applied;
    } catch (error) {
      onError?.(name, error);
    }
  }
  return result;
}

function texts(items: ReadonlyArray<{ text: string }>): string {
  return items.map((item) => item.text).join('\n\n');
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
