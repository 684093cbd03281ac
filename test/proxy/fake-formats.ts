/**
 * The wire formats the fake upstream speaks besides chat completions, written from the formats' references (the
 * `openai` package's `resources/responses` types, Anthropic's Messages API reference): the OpenAI Responses API,
 * Anthropic Messages and legacy completions. Each request is read into the chat view the scripted agents take (its
 * `messages`), and each scripted turn written as that format's answer, JSON or streamed.
 */
import type { RequestBody, ScriptedTurn } from './fake-upstream.js';

/** The format a path is answered in. */
export type Wire = 'chat' | 'completions' | 'responses' | 'anthropic';

type ChatView = RequestBody['messages'];
type Item = Record<string, unknown>;

/** The text of content: a string, or the text of its parts (`input_text`, `output_text`, `text`). */
function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: Item) => (typeof part?.text === 'string' ? part.text : '')).join('');
}

/** Responses API input items (after `instructions`) as chat messages. */
export function responsesView(instructions: unknown, input: unknown): ChatView {
  const messages: ChatView = typeof instructions === 'string' && instructions !== '' ? [{ role: 'system', content: instructions }] : [];
  const items: Item[] = typeof input === 'string' ? [{ role: 'user', content: input }] : Array.isArray(input) ? input : [];
  for (const item of items) {
    if (item.type === 'function_call') {
      const call = { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } };
      const last = messages.at(-1);
      if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: 'assistant', content: '', tool_calls: [call] });
    } else if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', tool_call_id: String(item.call_id), content: text(item.output) });
    } else if (typeof item.role === 'string') {
      messages.push({ role: item.role === 'developer' ? 'system' : item.role, content: text(item.content) });
    }
  }
  return messages;
}

/** An Anthropic Messages request as chat messages. */
export function anthropicView(system: unknown, messages: unknown): ChatView {
  const view: ChatView = typeof system === 'string' || Array.isArray(system) ? [{ role: 'system', content: text(system) }] : [];
  for (const message of (Array.isArray(messages) ? messages : []) as Item[]) {
    const blocks: Item[] = Array.isArray(message.content) ? message.content : [{ type: 'text', text: message.content }];
    if (message.role === 'assistant') {
      const calls = blocks.filter((block) => block.type === 'tool_use').map((block) => ({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input) } }));
      view.push({ role: 'assistant', content: text(blocks.filter((block) => block.type === 'text')), ...(calls.length > 0 ? { tool_calls: calls } : {}) });
      continue;
    }
    for (const block of blocks.filter((entry) => entry.type === 'tool_result')) view.push({ role: 'tool', tool_call_id: String(block.tool_use_id), content: text(block.content) });
    const said = blocks.filter((block) => block.type === 'text');
    if (said.length > 0) view.push({ role: message.role === 'system' ? 'system' : 'user', content: text(said) });
  }
  return view;
}

/** A legacy completion's prompt as one user message. */
export function completionsView(prompt: unknown): ChatView {
  return [{ role: 'user', content: Array.isArray(prompt) ? String(prompt[0]) : String(prompt) }];
}

/** Splits text into pieces of at most `size` characters (at least one piece). */
function pieces(value: string, size: number): string[] {
  return value.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [''];
}

let responses = 0;

/** A turn as a Responses API response: a message item for its text, a `function_call` item per call. */
export function responseJson(turn: ScriptedTurn, id = `resp_fake_${++responses}`): Item {
  const output: Item[] = [];
  if (turn.content !== '') output.push({ id: `msg_${id}`, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.content, annotations: [] }] });
  (turn.toolCalls ?? []).forEach((call, index) => output.push({ id: `fc_${id}_${index}`, type: 'function_call', call_id: call.id ?? `call_${index}`, name: call.name, arguments: JSON.stringify(call.args), status: 'completed' }));
  return { id, object: 'response', created_at: 1_700_000_000, status: 'completed', model: 'fake-model', output, parallel_tool_calls: true, tool_choice: 'auto', tools: [], usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } };
}

/** One Responses API event as OpenAI streams it (`event:` line, then the data). */
export function responseEvent(data: Item): string {
  return `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A response as OpenAI streams it: created, in progress, each item (text and arguments in pieces), completed. */
export function responseEventsOf(response: Item): Item[] {
  const events: Item[] = [];
  const emit = (event: Item) => events.push({ ...event, sequence_number: events.length });
  const start = { ...response, status: 'in_progress', output: [] };
  emit({ type: 'response.created', response: start });
  emit({ type: 'response.in_progress', response: start });
  (response.output as Item[]).forEach((item, outputIndex) => {
    const at = { item_id: item.id, output_index: outputIndex };
    if (item.type === 'message') {
      const part = (item.content as Item[])[0]!;
      emit({ type: 'response.output_item.added', output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } });
      emit({ type: 'response.content_part.added', ...at, content_index: 0, part: { ...part, text: '' } });
      for (const piece of pieces(String(part.text), 8)) emit({ type: 'response.output_text.delta', ...at, content_index: 0, delta: piece, logprobs: [] });
      emit({ type: 'response.output_text.done', ...at, content_index: 0, text: part.text, logprobs: [] });
      emit({ type: 'response.content_part.done', ...at, content_index: 0, part });
    } else {
      emit({ type: 'response.output_item.added', output_index: outputIndex, item: { ...item, arguments: '', status: 'in_progress' } });
      for (const piece of pieces(String(item.arguments), 5)) emit({ type: 'response.function_call_arguments.delta', ...at, delta: piece });
      emit({ type: 'response.function_call_arguments.done', ...at, name: item.name, arguments: item.arguments });
    }
    emit({ type: 'response.output_item.done', output_index: outputIndex, item });
  });
  emit({ type: 'response.completed', response });
  return events;
}

/** A turn as an Anthropic message: a text block for its text, a `tool_use` block per call. */
export function anthropicJson(turn: ScriptedTurn): Item {
  const content: Item[] = [];
  if (turn.content !== '') content.push({ type: 'text', text: turn.content });
  (turn.toolCalls ?? []).forEach((call, index) => content.push({ type: 'tool_use', id: call.id ?? `toolu_${index}`, name: call.name, input: call.args }));
  return { id: 'msg_fake', type: 'message', role: 'assistant', model: 'fake-model', content, stop_reason: (turn.toolCalls ?? []).length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } };
}

/** One Anthropic event (`event:` named by its type, as Anthropic sends them). */
export function anthropicEvent(data: Item): string {
  return `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A message as Anthropic streams it: start, a ping, each block (text and input JSON in pieces), delta, stop. */
export function anthropicEventsOf(message: Item): Item[] {
  const events: Item[] = [{ type: 'message_start', message: { ...message, content: [], stop_reason: null, stop_sequence: null } }, { type: 'ping' }];
  (message.content as Item[]).forEach((block, index) => {
    if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const piece of pieces(String(block.text), 8)) events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    } else {
      events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      for (const piece of pieces(JSON.stringify(block.input), 5)) events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: 5 } });
  events.push({ type: 'message_stop' });
  return events;
}

/** A turn as a legacy completion: its text only. */
export function textCompletionJson(turn: ScriptedTurn): Item {
  return { id: 'cmpl-fake', object: 'text_completion', created: 1_700_000_000, model: 'fake-model', choices: [{ text: turn.content, index: 0, logprobs: null, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } };
}

/** A legacy completion's stream: its text in pieces, a finish chunk, `[DONE]`. */
export function textCompletionEvents(turn: ScriptedTurn): string[] {
  const base = { id: 'cmpl-fake', object: 'text_completion', created: 1_700_000_000, model: 'fake-model' };
  const events = pieces(turn.content, 8).map((piece) => JSON.stringify({ ...base, choices: [{ text: piece, index: 0, logprobs: null, finish_reason: null }] }));
  events.push(JSON.stringify({ ...base, choices: [{ text: '', index: 0, logprobs: null, finish_reason: 'stop' }] }), '[DONE]');
  return events;
}
