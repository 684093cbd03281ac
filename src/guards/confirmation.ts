import { canonicalJson, formatValue } from '../facts/index.js';
import { hashString } from '../hash/cyrb53.js';
import type { AskableDeclaration, Value } from '../rules/index.js';
import type { CheckResult } from './result.js';

/**
 * The arguments a call-bound confirmation covers: every argument of the call, or only those the askable names
 * (`askable confirms_flight_update(R) for update_reservation_flights(flights, cabin, payment_id)`).
 */
export function confirmedArguments(declaration: AskableDeclaration, args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const names = declaration.confirms?.params;
  if (names === undefined) return { ...args };
  return Object.fromEntries(names.map((name) => [name, args[name] ?? null]));
}

/**
 * The reference of one call, as a call-bound confirmation stores it (its last argument): the tool's name and a hash
 * of the canonical JSON of the confirmed arguments, e.g. `"book_reservation#1k3x9ab2"`. Equal calls (whatever the
 * order of their keys) get equal references; any other argument gives another, so a yes to one call proves no other.
 * Stateless, so a confirmation survives a fact store persisted and restored in another process.
 */
export function confirmationRef(declaration: AskableDeclaration, tool: string, args: Readonly<Record<string, unknown>>): string {
  return `${tool}#${hashString(canonicalJson(confirmedArguments(declaration, args))).toString(36)}`;
}

/** Whether a value has the shape of a call reference for `tool`. */
export function isConfirmationRef(value: unknown, tool: string): value is string {
  return typeof value === 'string' && value.startsWith(`${tool}#`) && /^[0-9a-z]+$/.test(value.slice(tool.length + 1));
}

/** The call being confirmed, as the user should read it: `book_reservation(user_id: "mia_li_3818", cabin: economy, ...)`. */
export function renderConfirmedCall(declaration: AskableDeclaration, tool: string, args: Readonly<Record<string, unknown>>): string {
  const shown = confirmedArguments(declaration, args);
  return `${tool}(${Object.entries(shown)
    .map(([name, value]) => `${name}: ${formatValue(toValue(value))}`)
    .join(', ')})`;
}

function toValue(value: unknown): Value {
  if (value === undefined) return null;
  if (typeof value === 'object' && value !== null) return JSON.parse(JSON.stringify(value)) as Value;
  return value as Value;
}

/**
 * Whether a check is blocked on nothing but confirmations of this exact call (incidental failures of other rule
 * alternatives aside): exactly what a human approval of the call gives. Hosts with an approval mechanism ask their
 * user only then; a call with anything else in its way is answered with the refusal for the model.
 * @example
 * if (needsOnlyApproval(check) && (await askHuman(check))) sentinel.recordApproval(check);
 */
export function needsOnlyApproval(check: CheckResult): boolean {
  const blockers = check.blockers.filter((blocker) => !(blocker.kind === 'condition' && blocker.decisive === false));
  return check.status === 'blocked' && blockers.length > 0 && blockers.every((blocker) => blocker.kind === 'ask' && blocker.call !== undefined);
}

/**
 * What to put to the human for a check {@link needsOnlyApproval} accepts: the policy's questions, each naming the
 * exact call (the call is appended when the question does not show it).
 * @example
 * approvalQuestions(check) // ['Book exactly this for user mia_li_3818: book_reservation(...)? (yes/no)']
 */
export function approvalQuestions(check: CheckResult): string[] {
  return check.blockers.flatMap((blocker) => (blocker.kind === 'ask' ? [blocker.question.includes(blocker.call ?? '') ? blocker.question : `${blocker.question} (${blocker.call})`] : []));
}

/**
 * The model's answer when the human declined a call through the host's approval: the call did not run, and should not
 * be tried again unless the user asks.
 * @example
 * declinedText('cancel_reservation', 'wrong booking') // 'The user declined this cancel_reservation call: wrong booking ...'
 */
export function declinedText(tool: string, reason?: string): string {
  return `The user declined this ${tool} call${reason ? `: ${reason}` : '.'} Do not retry it unless they ask again.`;
}
