/**
 * An Anthropic Messages client over raw HTTP (`@anthropic-ai/sdk` is not installed here), written to the documented
 * wire format and to what the official SDK does with it: headers `x-api-key` and `anthropic-version`; a stream read
 * by each event's name (`message_start`, `content_block_start`, ...; `ping` skipped, `error` raised), a block's deltas
 * applied to the block at their `index`, as the SDK's `MessageStream` accumulates them. And the support demo over it.
 */
import { createParser } from 'eventsource-parser';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnthropicMessage = Record<string, any>;
type Block = Record<string, unknown>;

export const SYSTEM = 'You are a support agent for an online shop. Be brief.';
export const ANTHROPIC_TOOLS = ['verify_identity', 'issue_refund'].map((name) => ({ name, input_schema: { type: 'object', properties: {} } }));

/** An error the API (or the proxy, in Anthropic's shape) answered with. */
export class AnthropicError extends Error {
  constructor(
    readonly status: number,
    readonly body: AnthropicMessage,
  ) {
    super(String(body?.error?.message ?? `status ${status}`));
  }
}

/** The events of one streamed answer as the client received them: name and data. */
export type ReceivedEvent = { event: string | undefined; data: AnthropicMessage };

/**
 * One `POST /v1/messages`: the message, accumulated from the stream when `stream` is set (with every event received).
 * @throws {AnthropicError} for an error status or an `error` event.
 */
export async function createMessage(baseUrl: string, body: Record<string, unknown>, { stream = false, headers = {} }: { stream?: boolean; headers?: Record<string, string> } = {}): Promise<{ message: AnthropicMessage; events: ReceivedEvent[]; response: Response }> {
  const response = await fetch(`${baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify({ model: 'claude-fake', max_tokens: 1024, ...body, ...(stream ? { stream: true } : {}) }),
  });
  if (!response.ok) throw new AnthropicError(response.status, (await response.json()) as AnthropicMessage);
  if (!stream) return { message: (await response.json()) as AnthropicMessage, events: [], response };
  const events: ReceivedEvent[] = [];
  const parser = createParser({ onEvent: (event) => events.push({ event: event.event, data: JSON.parse(event.data) as AnthropicMessage }) });
  parser.feed(await response.text());
  return { message: accumulate(events), events, response };
}

/** The message a stream builds, as the official SDK builds it (by event name; deltas by block index). */
export function accumulate(events: readonly ReceivedEvent[]): AnthropicMessage {
  let message: AnthropicMessage | undefined;
  const json = new Map<number, string>();
  for (const { event, data } of events) {
    if (event === 'error') throw new AnthropicError(200, data);
    if (event === 'message_start') message = structuredClone(data.message);
    else if (!message) continue;
    else if (event === 'content_block_start') message.content.push(structuredClone(data.content_block));
    else if (event === 'content_block_delta') {
      const block = message.content.at(data.index) as Block | undefined;
      if (data.delta.type === 'text_delta' && block?.type === 'text') block.text = `${String(block.text)}${data.delta.text}`;
      if (data.delta.type === 'input_json_delta' && block?.type === 'tool_use') {
        json.set(data.index, (json.get(data.index) ?? '') + data.delta.partial_json);
        block.input = JSON.parse(json.get(data.index)!);
      }
    } else if (event === 'message_delta') message.stop_reason = data.delta.stop_reason;
  }
  if (!message) throw new Error('the stream carried no message_start');
  return message;
}

/** The `tool_use` blocks of a message. */
export function toolUses(message: AnthropicMessage): Block[] {
  return (message.content as Block[]).filter((block) => block.type === 'tool_use');
}

/** The text of a message's text blocks. */
export function textOf(message: AnthropicMessage): string {
  return (message.content as Block[]).flatMap((block) => (block.type === 'text' ? [String(block.text)] : [])).join('\n');
}

/** The support demo's customer side over Anthropic Messages: tool results sent back, "go ahead" once, two plain answers end it. */
export async function runAnthropicDemo(baseUrl: string, { stream }: { stream: boolean }) {
  const messages: AnthropicMessage[] = [{ role: 'user', content: 'Hi, I want a refund for order A-1042, it arrived broken.' }];
  const answers: Array<{ message: AnthropicMessage; events: ReceivedEvent[]; sessionId: string | null }> = [];
  let plainAnswers = 0;
  for (let call = 0; call < 8; call++) {
    const { message, events, response } = await createMessage(baseUrl, { system: SYSTEM, messages, tools: ANTHROPIC_TOOLS }, { stream });
    answers.push({ message, events, sessionId: response.headers.get('x-panoptes-session-id') });
    messages.push({ role: 'assistant', content: message.content });
    const uses = toolUses(message);
    if (uses.length > 0) {
      messages.push({ role: 'user', content: uses.map((use) => ({ type: 'tool_result', tool_use_id: use.id, content: use.name === 'issue_refund' ? 'Refund of $42 issued.' : 'Identity verified.' })) });
      continue;
    }
    plainAnswers++;
    if (plainAnswers === 2) break;
    messages.push({ role: 'user', content: 'OK, please go ahead.' });
  }
  return { answers };
}
