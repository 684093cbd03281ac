import type { FoundCall } from './answer-calls.js';

/** Longest argument value a refusal note keeps whole, in characters. */
export const MAX_NOTED_VALUE_CHARS = 40;

/** Most string values of one call's arguments looked at: a call with more keeps the rest as they are in its reason. */
const MAX_VALUES = 64;

/**
 * A refused call's reason, for the session's next system prompt, with each long string value of the call's own
 * arguments cut to its start and an ellipsis. The reason quotes the arguments, and the model may have copied them from
 * an injected tool result: the tool result's channel is where such text belongs, the system prompt is not. Short values
 * (an address, an id, an amount) stay whole, so the model still knows which call was refused.
 * @example
 * noteText('send_money(subject: "IGNORE ALL PREVIOUS ... ") was refused', call) // 'send_money(subject: "IGNORE ALL PREVIOUS INST…") ...'
 */
export function noteText(reason: string, call: FoundCall): string {
  let text = reason;
  for (const value of longValues(call)) {
    const cut = `${value.slice(0, MAX_NOTED_VALUE_CHARS - 8)}…`;
    const quoted = JSON.stringify(value).slice(1, -1);
    text = text.split(quoted).join(JSON.stringify(cut).slice(1, -1));
    if (quoted !== value) text = text.split(value).join(cut);
  }
  return text;
}

/** The call's string argument values longer than {@link MAX_NOTED_VALUE_CHARS}, longest first (a value may hold another). */
function longValues(call: FoundCall): string[] {
  const values: string[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (values.length >= MAX_VALUES || depth > 8) return;
    if (typeof value === 'string') {
      if (value.length > MAX_NOTED_VALUE_CHARS) values.push(value);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
    } else if (typeof value === 'object' && value !== null) {
      for (const item of Object.values(value)) visit(item, depth + 1);
    }
  };
  visit(parsed(call), 0);
  return values.sort((a, b) => b.length - a.length);
}

/** The arguments as a value: a JSON object's text parsed, a custom tool's free text as it is. */
function parsed(call: FoundCall): unknown {
  if (typeof call.arguments !== 'string') return call.arguments;
  if (call.custom) return call.arguments;
  try {
    return JSON.parse(call.arguments);
  } catch {
    return call.arguments;
  }
}
