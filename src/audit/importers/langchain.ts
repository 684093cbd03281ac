import { isRecord } from '../messages.js';

const ROLE_BY_TYPE: Record<string, string> = { human: 'user', user: 'user', ai: 'assistant', assistant: 'assistant', system: 'system', tool: 'tool' };
const ROLE_BY_CLASS: Record<string, string> = { HumanMessage: 'user', AIMessage: 'assistant', SystemMessage: 'system', ToolMessage: 'tool' };

/**
 * Whether a list holds LangChain messages as exports write them: serialised (`{ lc: 1, type: 'constructor', id: [...,
 * 'AIMessage'], kwargs }`), `messages_to_dict` (`{ type: 'ai', data: {...} }`) or flat (`{ type: 'ai', content }`).
 */
export function isLangChainMessages(messages: readonly unknown[]): boolean {
  return messages.length > 0 && messages.every((message) => isRecord(message) && !('role' in message) && (message.lc === 1 || typeof message.type === 'string'));
}

/** LangChain messages as OpenAI chat messages; `tool_calls` `{ name, args, id }` become function calls. */
export function fromLangChainMessages(messages: readonly unknown[]): unknown[] {
  return messages.map((message) => {
    if (!isRecord(message)) return message;
    const { role, fields } = roleAndFields(message);
    const calls = Array.isArray(fields.tool_calls)
      ? fields.tool_calls.filter(isRecord).map((call) => ({ ...(typeof call.id === 'string' ? { id: call.id } : {}), type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) } }))
      : [];
    return {
      role,
      content: fields.content ?? '',
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
      ...(typeof fields.tool_call_id === 'string' ? { tool_call_id: fields.tool_call_id } : {}),
      ...(role === 'tool' && typeof fields.name === 'string' ? { name: fields.name } : {}),
    };
  });
}

function roleAndFields(message: Record<string, unknown>): { role: unknown; fields: Record<string, unknown> } {
  if (message.lc === 1 && Array.isArray(message.id)) {
    const className = String(message.id.at(-1)).replace(/Chunk$/, '');
    return { role: ROLE_BY_CLASS[className] ?? className, fields: isRecord(message.kwargs) ? message.kwargs : {} };
  }
  const type = String(message.type);
  const fields = isRecord(message.data) ? message.data : message;
  return { role: ROLE_BY_TYPE[type] ?? type, fields };
}

/** Whether a value is a LangChain/LangSmith run export: an object with `inputs` and `outputs` or a `run_type`. */
export function isRun(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && isRecord(value.inputs) && (isRecord(value.outputs) || typeof value.run_type === 'string');
}

/**
 * The conversation of one run: its input messages (an LLM run nests them, `[[...]]`) and what it answered
 * (`outputs.generations[0][0].message`, `outputs.messages` of a graph run, which already holds the inputs, or
 * `outputs.output`). Returns the messages in LangChain's form, and the run's id.
 */
export function runConversation(run: Record<string, unknown>): { id?: string; messages: unknown[] } {
  const inputs = run.inputs as Record<string, unknown>;
  const outputs = isRecord(run.outputs) ? run.outputs : {};
  const id = typeof run.id === 'string' ? run.id : typeof run.trace_id === 'string' ? run.trace_id : undefined;
  const raw = Array.isArray(inputs.messages) ? inputs.messages : [];
  const input = raw.length > 0 && Array.isArray(raw[0]) ? (raw[0] as unknown[]) : raw;
  if (Array.isArray(outputs.messages) && outputs.messages.length >= input.length) return { ...(id ? { id } : {}), messages: outputs.messages };
  const generation = Array.isArray(outputs.generations) ? [outputs.generations].flat(2).find(isRecord) : undefined;
  const answer = generation?.message ?? outputs.output;
  return { ...(id ? { id } : {}), messages: answer === undefined ? input : [...input, answer] };
}
