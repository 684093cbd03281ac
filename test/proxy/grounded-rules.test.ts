/**
 * Grounded confirmations behind the proxy, with the official `openai` client: the rules count the user's yes only for
 * a call whose flights, cabin and payment method the assistant's message before it stated, and only once. The proxy
 * reads the conversation's last exchange from each request, as the in-process hosts pass theirs.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { ChatCompletionMessage, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { loadWorkflow } from '../../src/index.js';
import { loadRulebase } from '../../src/rules/index.js';
import { createProxyRules } from '../../src/proxy/index.js';
import type { ScriptedTurn } from './fake-upstream.js';
import { nextGuidance, startProxy, type Running } from './helpers.js';
import { BOOKING_RULES, OPEN_WORKFLOW } from './rules-helpers.js';

const TOOLS: ChatCompletionTool[] = [{ type: 'function', function: { name: 'book_reservation', parameters: { type: 'object', properties: {} } } }];
const AGREED = { user_id: 'mia_li_3818', flights: [{ flight_number: 'HAT001', date: '2024-05-20' }], cabin: 'economy', payment_id: 'credit_card_7815826' };
const RESTATED: ScriptedTurn = { content: 'I will book flight HAT001 on May 20, 2024 in economy, paid with credit card 7815826. Shall I go ahead?' };
const book = (id: string, args: Record<string, unknown>): ScriptedTurn => ({ content: '', toolCalls: [{ id, name: 'book_reservation', args }] });
/** What the user reads in place of the refused booking: the askable's question, its call filled in. */
const QUESTION = 'Book for mia_li_3818 exactly as follows: book_reservation(flights: [{flight_number: "HAT001", date: "2024-05-20"}], cabin: economy, payment_id: credit_card_7815826)? (yes/no)';
const SESSION = { 'x-panoptes-session-id': 'booking-1' };

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function start(turns: ScriptedTurn[], anthropic = false): Promise<Running> {
  const rules = createProxyRules({ rulebase: await loadRulebase(BOOKING_RULES) });
  running = await startProxy(() => turns.shift() ?? { content: 'Done.' }, { monitor: { workflow: await loadWorkflow(OPEN_WORKFLOW) }, proxy: { rules }, anthropic });
  return running;
}
const guidance = () => nextGuidance(running!.monitor, 'booking-1');
const names = (message: ChatCompletionMessage) => (message.tool_calls ?? []).map((call) => call.type === 'function' && call.function.name);

describe.each([false, true])('grounded confirmation through the proxy (stream: %s)', (stream) => {
  async function ask(messages: ChatCompletionMessageParam[]): Promise<ChatCompletionMessage> {
    const { client } = running!;
    if (!stream) return (await client.chat.completions.create({ model: 'fake-model', messages, tools: TOOLS }, { headers: SESSION })).choices[0]!.message;
    return (await client.chat.completions.stream({ model: 'fake-model', messages, tools: TOOLS }, { headers: SESSION }).finalChatCompletion()).choices[0]!.message;
  }
  const assistant = (message: ChatCompletionMessage): ChatCompletionMessageParam => ({ role: 'assistant', content: message.content ?? '', ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}) }) as ChatCompletionMessageParam;
  /** The user asks, the model restates the booking, the user says yes: the messages of the request that follows. */
  async function agreed(): Promise<ChatCompletionMessageParam[]> {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Book HAT001 on May 20 in economy with my card ending 7815826.' }];
    messages.push(assistant(await ask(messages)), { role: 'user', content: 'Yes, please go ahead.' });
    return messages;
  }

  it('lets the agreed call through once: the same call again, without a new yes, is refused', async () => {
    await start([RESTATED, book('call_1', AGREED), book('call_2', AGREED)]);
    const messages = await agreed();
    let answer = await ask(messages);
    expect(names(answer)).toEqual(['book_reservation']);
    messages.push(assistant(answer), { role: 'tool', tool_call_id: answer.tool_calls![0]!.id, content: '{"reservation_id": "ZFA04Y"}' });
    answer = await ask(messages);
    expect(names(answer)).toEqual([]);
    expect(answer.content).toBe(QUESTION);
    expect(await guidance()).toContain("The user's last yes already confirmed a call; a yes counts once.");
  });

  it.each([
    ['payment_id', { ...AGREED, payment_id: 'gift_card_1234' }],
    ['cabin', { ...AGREED, cabin: 'business' }],
  ])('refuses a call whose %s differs from the restatement, naming it', async (param, args) => {
    await start([RESTATED, book('call_1', args)]);
    const answer = await ask(await agreed());
    expect(names(answer)).toEqual([]);
    const text = await guidance();
    expect(text).toContain(`The user's yes answered a message that did not state ${param} of this call.`);
    expect(text).toContain('Restate the call to the user with its flights, cabin, payment_id');
  });

  it('shows the user the question, with the call, in its place: a yes to it lets the call through', async () => {
    await start([book('call_1', AGREED), book('call_2', AGREED)]);
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Book HAT001 on May 20 in economy with my card ending 7815826.' }];
    let answer = await ask(messages);
    expect(names(answer)).toEqual([]);
    expect(answer.content).toBe(QUESTION);
    expect(await guidance()).toContain('Restate the call to the user with its flights, cabin, payment_id');
    messages.push(assistant(answer), { role: 'user', content: 'yes' });
    answer = await ask(messages);
    expect(names(answer)).toEqual(['book_reservation']);
  });

  it('does not count a plain yes to a message that stated nothing', async () => {
    await start([book('call_1', AGREED), { content: 'Shall I book it?' }, book('call_2', AGREED)]);
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Book HAT001 for me.' }];
    let answer = await ask(messages);
    expect(names(answer)).toEqual([]);
    // The user answers the question shown with another question; the model's next message states nothing of the call.
    messages.push(assistant(answer), { role: 'user', content: 'Which card would that use?' });
    messages.push(assistant(await ask(messages)), { role: 'user', content: 'yes' });
    answer = await ask(messages);
    expect(names(answer)).toEqual([]);
    expect(await guidance()).toContain('did not state flights, cabin, payment_id of this call');
  });
});

describe.each([false, true])('Responses API continued by previous_response_id (stream: %s)', (stream) => {
  // A continuation carries only its new items: the yes answers the answer the proxy delivered before it.
  const tools = [{ type: 'function' as const, name: 'book_reservation', parameters: { type: 'object', properties: {} }, strict: false }];
  type Params = { input: string | Array<Record<string, unknown>>; previous_response_id?: string };
  const respond = async (params: Params) => {
    const { client } = running!;
    const body = { model: 'fake-model', tools, ...params } as Parameters<typeof client.responses.create>[0] & { stream?: false };
    return stream ? client.responses.stream(body as never, { headers: SESSION }).finalResponse() : client.responses.create(body, { headers: SESSION });
  };
  const callIds = (response: { output: Array<{ type: string }> }) => response.output.flatMap((item) => (item.type === 'function_call' ? [(item as unknown as { call_id: string }).call_id] : []));
  const calls = (response: { output: Array<{ type: string }> }) => callIds(response).length;

  it('counts a yes to the restatement the previous answer made, once', async () => {
    await start([RESTATED, book('call_1', AGREED), RESTATED, book('call_2', { ...AGREED, cabin: 'business' })]);
    let response = await respond({ input: 'Book HAT001 on May 20 in economy with my card ending 7815826.' });
    response = await respond({ previous_response_id: response.id, input: 'Yes, please go ahead.' });
    expect(calls(response)).toBe(1);
    // A new restatement and a new yes: a new exchange, whose yes does not cover another cabin.
    const output = { type: 'function_call_output', call_id: callIds(response)[0], output: '{"reservation_id": "ZFA04Y"}' };
    response = await respond({ previous_response_id: response.id, input: [output, { role: 'user', content: 'And the same again for my return?' }] });
    response = await respond({ previous_response_id: response.id, input: 'Yes, please go ahead.' });
    expect(calls(response)).toBe(0);
    expect(await guidance()).toContain('did not state cabin of this call');
  });

  it('shows the question in place of the refused call; a yes to it lets the call through', async () => {
    await start([book('call_1', AGREED), book('call_2', AGREED)]);
    let response = await respond({ input: 'Book HAT001 on May 20 in economy with my card ending 7815826.' });
    expect(calls(response)).toBe(0);
    expect(response.output_text).toBe(QUESTION);
    response = await respond({ previous_response_id: response.id, input: 'yes' });
    expect(calls(response)).toBe(1);
  });
});

describe.each([false, true])('Anthropic Messages (stream: %s)', (stream) => {
  it('counts a yes to the restatement for the agreed call only, and shows the question in place of the other', async () => {
    const { url } = await start([RESTATED, book('call_1', { ...AGREED, payment_id: 'gift_card_1234' }), book('call_2', { ...AGREED, payment_id: 'gift_card_1234' })], true);
    const client = new Anthropic({ baseURL: url, apiKey: 'sk-ant-test', maxRetries: 0, defaultHeaders: SESSION });
    const tools = [{ name: 'book_reservation', input_schema: { type: 'object' as const, properties: {} } }];
    const create = async (messages: Anthropic.MessageParam[]) =>
      stream ? client.messages.stream({ model: 'claude-fake', max_tokens: 256, messages, tools }).finalMessage() : client.messages.create({ model: 'claude-fake', max_tokens: 256, messages, tools });
    const text = (message: Anthropic.Message) => message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
    const uses = (message: Anthropic.Message) => message.content.filter((block) => block.type === 'tool_use').length;
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Book HAT001 on May 20 in economy with my card ending 7815826.' }];
    let message = await create(messages);
    messages.push({ role: 'assistant', content: message.content }, { role: 'user', content: 'Yes, please go ahead.' });
    // The call pays with a gift card the restatement never named: refused, the user reads the question with that card.
    message = await create(messages);
    expect(uses(message)).toBe(0);
    expect(text(message)).toContain('payment_id: gift_card_1234)? (yes/no)');
    expect(await guidance()).toContain('did not state payment_id of this call');
    messages.push({ role: 'assistant', content: message.content }, { role: 'user', content: 'yes' });
    message = await create(messages);
    expect(uses(message)).toBe(1);
  });
});
