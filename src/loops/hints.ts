import type { LoopAction } from './types.js';

/**
 * The first hint after a loop is found, written for the model (the reference proxy's `LOOP_INTERVENTION_MESSAGE`,
 * with what repeated). `{detail}` is replaced by a short description such as "you called `search` 4 times with the
 * same arguments and got the same result".
 */
export const DEFAULT_LOOP_HINT =
  'You seem to be repeating yourself: {detail}. Take a different approach, or consider that your previous attempts may already have answered the question.';

/** The hint when the same loop is found again after the first hint. */
export const DEFAULT_LOOP_STRONGER_HINT =
  'You are still repeating yourself after being told so: {detail}. Do not repeat it again. Change your approach now: use a different tool or different arguments, or answer with what you already know and say what is missing.';

/** The reason given when a loop survived the hints and the run is stopped. */
export const DEFAULT_LOOP_STOP_MESSAGE = 'The run was stopped because the agent kept repeating itself after being asked to change course: {detail}.';

/** Order of strength, so the strongest action of a step wins. @internal */
export const ACTION_RANK: Readonly<Record<LoopAction, number>> = { hint: 0, 'stronger-hint': 1, stop: 2 };

/**
 * Fills `{detail}` in a hint text. A text without the placeholder is used as written, so a user's own hint is never
 * changed behind their back.
 * @internal
 */
export function renderLoopText(template: string, detail: string): string {
  return template.replaceAll('{detail}', detail);
}

/** Cuts a text for evidence and hints: the model and the logs need the gist, not a 10 MB payload. @internal */
export function excerpt(text: string, limit = 200): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
