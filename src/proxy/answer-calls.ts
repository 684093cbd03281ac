/**
 * The tool calls of an answer, wherever the OpenAI format lets an answer carry one, and what becomes of each: the
 * non-streamed reader (answer-json.ts) and the stream gate find them; {@link decideCalls} refuses those the proxy
 * refuses on sight and sends the rest to the monitor's check, with the answer's text.
 * @module
 */
import type { AssistantTurn, ToolCall } from '../messages/index.js';
import type { ToolGuard, ToolGuardVerdict } from '../monitor/index.js';
import { MAX_NESTING, nestsDeeperThan } from './answer-body.js';
import { deliveredTurn, isRefused, type RefusedToolCall } from './enforce.js';
import { argumentsOf } from './translate.js';

/** One tool call an answer carries: from `tool_calls` (a function or custom tool) or the legacy `function_call`. */
export interface FoundCall {
  /** The choice it came in: its position in `choices` (a completion) or its `index` (a stream). */
  choice: number;
  id?: string;
  /** The name as sent; anything but a non-empty string is a call that cannot be read. */
  name: unknown;
  /** The arguments as sent: a JSON object's text, or nothing; a custom tool's input is free text. */
  arguments: unknown;
  /** Set for a custom tool (`type: "custom"`), whose input is free text rather than JSON. */
  custom?: boolean;
  /**
   * Why the call cannot be read, when its reader knows better than its name and arguments say (two places of one
   * answer that disagree about it, a kind of call the proxy cannot check): then it is refused for that reason.
   */
  unreadable?: string;
}

/**
 * Checks one answer turn with the monitor (classification, then each call's pre-emptive check, with `guard` asked
 * about each call the workflow allows); returns the refused.
 */
export type CheckTurn = (turn: AssistantTurn, guard?: ToolGuard) => Promise<RefusedToolCall[]>;

/** Most offered names a refusal lists, so a request with many tools does not get a wall of names back. */
const LISTED_NAMES = 10;

/**
 * The tool names a request offers: `tools[].function.name` (and a custom tool's `custom.name`), and the legacy
 * `functions[].name`; `undefined` when it offers neither list, so no name is refused for not being offered.
 * @example
 * offeredNames({ tools: [{ type: 'function', function: { name: 'verify_identity' } }] }) // Set { 'verify_identity' }
 */
export function offeredNames({ tools, functions }: Record<string, unknown>): ReadonlySet<string> | undefined {
  if (!Array.isArray(tools) && !Array.isArray(functions)) return undefined;
  const names = new Set<string>();
  for (const tool of [...(Array.isArray(tools) ? tools : []), ...(Array.isArray(functions) ? functions : [])]) {
    const entry = tool as { name?: unknown; function?: { name?: unknown }; custom?: { name?: unknown } } | null;
    const name = entry?.function?.name ?? entry?.custom?.name ?? entry?.name;
    if (typeof name === 'string') names.add(name);
  }
  return names;
}

/**
 * The calls a message (or a delta) carries, in order: each entry of `tool_calls`, then `function_call`. A carrier of
 * the wrong shape (a `tool_calls` that is not a list) counts as one call that cannot be read, so it is refused and
 * taken out rather than passed on unread.
 */
export function callsIn(message: Record<string, unknown>, choice: number): FoundCall[] {
  const found: FoundCall[] = [];
  const { tool_calls: calls, function_call: legacy } = message;
  if (Array.isArray(calls)) for (const call of calls) found.push(toolCall(call, choice));
  else if (calls != null) found.push({ choice, name: undefined, arguments: undefined });
  if (legacy != null) {
    const entry = record(legacy);
    found.push({ choice, name: entry?.name, arguments: entry?.arguments });
  }
  return found;
}

/**
 * A `tool_calls` entry. One whose `function` or `custom` is not an object, or that names its tool in both differently,
 * cannot be read: a client could take either.
 */
function toolCall(value: unknown, choice: number): FoundCall {
  const call = record(value);
  const parts = [call?.function, call?.custom].filter((part) => part != null);
  const named = parts.map(record);
  const readable = named.every((part) => part !== undefined) && (named.length === 1 || named[0]?.name === named[1]?.name);
  const name = readable ? named[0]?.name : undefined;
  const custom = call?.function === undefined && call?.custom !== undefined;
  return { choice, ...(typeof call?.id === 'string' ? { id: call.id } : {}), name, arguments: custom ? named[0]?.input : named[0]?.arguments, ...(custom ? { custom } : {}) };
}

/**
 * Why the proxy refuses `call` without asking the monitor, or `undefined` when the monitor decides. The proxy
 * monitors the first choice alone: a session records one answer per step, so checking alternative answers as if each
 * had happened would move the workflow through states the client never entered (an allowed `verify_identity` in
 * choice 1 would let choice 0's refund through). Requests for more than one choice are refused already; an upstream
 * that sends more anyway gets every call in the others refused.
 */
export function refusedOnSight(call: FoundCall): string | undefined {
  if (call.choice !== 0) return `it came in choice ${call.choice} of the answer, and the proxy checks only the first choice (one per call, n = 1)`;
  if (call.unreadable !== undefined) return call.unreadable;
  if (typeof call.name !== 'string' || call.name === '') return 'the call could not be read (its name is missing or not text)';
  const args = call.arguments;
  if (args == null || args === '') return undefined;
  if (call.custom) return typeof args === 'string' ? undefined : 'its input is not text';
  if (typeof args !== 'string') return 'its arguments are not JSON text';
  // A guard checks the arguments it can parse; a lenient client could parse more out of broken ones than the guard saw.
  if (nestsDeeperThan(args, MAX_NESTING)) return `its arguments nest deeper than ${MAX_NESTING} levels`;
  return isJsonObject(args) ? undefined : 'its arguments are not a JSON object';
}

/**
 * The guard that refuses a call to a tool the request did not offer (`offered`), by its exact name: a host looks a
 * call up by name, and one spelled another way (`Issue_Refund`, a Cyrillic letter) is either no tool of the client's
 * or one a lax lookup runs unchecked. A guard rather than a refusal on sight, so the monitor still sees the call (the
 * loop detector counts calls to unknown tools) but never enters its state.
 */
export function offeredGuard(offered: ReadonlySet<string>): ToolGuard {
  const names = [...offered];
  const listed = names.length === 0 ? 'none' : `${names.slice(0, LISTED_NAMES).join(', ')}${names.length > LISTED_NAMES ? ', ...' : ''}`;
  return (call: ToolCall): ToolGuardVerdict =>
    offered.has(call.name) ? ALLOWED : { allowed: false, reason: `The call to ${shownName(call.name)} was refused: it is not one of the tools this request offered (${listed}; names are matched exactly), so it did not run.` };
}
const ALLOWED: ToolGuardVerdict = { allowed: true };

/**
 * Decides every call of one answer: those {@link refusedOnSight} are refused with that reason; the first choice's
 * others go to `check` with its text (`content`), as one turn, in order, with the {@link offeredGuard} when the
 * request offered tools. Always calls `check`, so an answer without calls is still classified. Returns the refused
 * calls, each with why.
 */
export async function decideCalls(calls: readonly FoundCall[], content: string, check: CheckTurn, offered: ReadonlySet<string> | undefined): Promise<Map<FoundCall, RefusedToolCall>> {
  const refused = new Map<FoundCall, RefusedToolCall>();
  const checked: FoundCall[] = [];
  for (const call of calls) {
    const why = refusedOnSight(call);
    if (why === undefined) checked.push(call);
    else refused.set(call, refusalOf(call, `The call to ${shownName(call.name)} was refused: ${why}, so it did not run.`));
  }
  const toolCalls = checked.map((call) => ({ ...(call.id === undefined ? {} : { id: call.id }), name: call.name as string, args: argumentsOf(call.arguments) }));
  for (const entry of await check({ content, toolCalls }, offered && toolCalls.length > 0 ? offeredGuard(offered) : undefined)) {
    // `index` names the call exactly; without it (a check of another making), every call it could mean is refused.
    const matching = entry.index !== undefined ? [checked[entry.index]] : checked.filter((call) => isRefused([entry], { id: call.id, function: { name: call.name } }));
    for (const call of matching) if (call) refused.set(call, entry);
  }
  return refused;
}

/** A refusal of `call` for `reason` (a full sentence). */
function refusalOf(call: FoundCall, reason: string): RefusedToolCall {
  return { ...(call.id === undefined ? {} : { id: call.id }), name: typeof call.name === 'string' ? call.name : '', reason, constraints: [] };
}

/** A name as a refusal shows it: as it is when plain, else quoted with its invisible characters escaped. */
function shownName(name: unknown): string {
  if (typeof name !== 'string' || name === '') return 'a tool';
  if (/^[\w.-]+$/.test(name)) return name;
  return JSON.stringify(name).replace(/[\p{Cc}\p{Cf}]/gu, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** `value` when it is a plain JSON object. */
export function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * The first choice as the client receives it, for placing the conversation's next request: its text with the refusal
 * text after it, and the calls left (see `deliveredTurn`).
 */
export function firstChoiceDelivered(calls: readonly FoundCall[], content: string, refused: ReadonlyMap<FoundCall, RefusedToolCall>): AssistantTurn {
  const first = calls.filter((call) => call.choice === 0);
  const toolCalls = first.map((call) => ({ ...(call.id === undefined ? {} : { id: call.id }), name: typeof call.name === 'string' ? call.name : '', args: argumentsOf(call.arguments) }));
  return deliveredTurn({ content, toolCalls }, first.flatMap((call) => (refused.has(call) ? [refused.get(call)!] : [])));
}
