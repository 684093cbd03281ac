import type { InterventionStrategy } from '../workflow/types.js';

/**
 * The strategies from gentlest to strictest. Escalation moves one step right each time an intervention has been
 * applied `maxApplications` times: guidance in the system prompt is the least disruptive, a reminder next to the
 * latest turn is harder to miss, a note in the user's voice is hardest to ignore, and a block refuses the call.
 */
export const ESCALATION_ORDER: readonly InterventionStrategy[] = [
  'system-prompt-append',
  'context-reminder',
  'user-message-inject',
  'hard-block',
];

const PREFIXES: ReadonlyArray<readonly [prefix: string, strategy: InterventionStrategy]> = [
  ['inject:', 'user-message-inject'],
  ['remind:', 'context-reminder'],
  ['block:', 'hard-block'],
];

/**
 * Splits a template as written in a workflow file into its strategy (from the prefix) and its text.
 * @example
 * strategyFromTemplate('block: Never share internal data.') // { strategy: 'hard-block', template: 'Never share internal data.' }
 */
export function strategyFromTemplate(raw: string): { strategy: InterventionStrategy; template: string } {
  const trimmed = raw.trimStart();
  for (const [prefix, strategy] of PREFIXES) {
    if (trimmed.toLowerCase().startsWith(prefix)) return { strategy, template: trimmed.slice(prefix.length).trim() };
  }
  return { strategy: 'system-prompt-append', template: raw.trim() };
}

/**
 * The strategy after `steps` escalations from `base`, stopping at `hard-block`. A registered strategy stands where
 * the gentlest built-in does: its first escalation is a context reminder.
 */
export function escalate(base: InterventionStrategy, steps: number): InterventionStrategy {
  if (steps <= 0) return base;
  const start = Math.max(0, ESCALATION_ORDER.indexOf(base));
  return ESCALATION_ORDER[Math.min(ESCALATION_ORDER.length - 1, start + Math.max(0, steps))]!;
}
