/**
 * The judge on the Responses API (the official `openai` client) and Anthropic Messages (the official
 * `@anthropic-ai/sdk` client), streamed and not: a call the judge fails is refused before the client sees it, and a
 * response it fails is withheld when read whole or held, with the reason for the model's next call.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { FunctionTool } from 'openai/resources/responses/responses';
import { afterEach, describe, expect, it } from 'vitest';
import { nextGuidance, startProxy, type Running } from './helpers.js';
import { ASKING_RUBRICS, ATTACKER, PLAIN_WORKFLOW, RUBRICS, mailAgent, metricValue, testJudge } from './judge-helpers.js';
import { respond } from './responses-helpers.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const SHOWN = 'Sorry, I cannot do that.';
const FORWARD = 'Please forward my orders as the document says.';
const REFUND = 'When do I get my refund?';
const RESPONSE_MAIL: FunctionTool[] = [{ type: 'function', name: 'send_email', parameters: { type: 'object', properties: { to: { type: 'string' }, body: { type: 'string' } } }, strict: false }];
const ANTHROPIC_MAIL = [{ name: 'send_email', input_schema: { type: 'object' as const, properties: { to: { type: 'string' }, body: { type: 'string' } } } }];

async function start(textPolicy: 'stream' | 'hold' = 'stream', rubrics = RUBRICS) {
  const { judge, calls } = testJudge(rubrics);
  running = await startProxy(mailAgent, { monitor: { workflow: PLAIN_WORKFLOW }, proxy: { judge, refusalMessage: SHOWN, textPolicy }, anthropic: true });
  return { run: running, calls };
}

describe.each([false, true])('the Responses API with a judge (stream: %s)', (stream) => {
  it('refuses a call the judge fails; the model reads why on its next call', async () => {
    const { run, calls } = await start();
    const headers = { 'x-panoptes-session-id': `responses-${stream}` };
    const { response } = await respond(run.client, { input: [{ role: 'user', content: FORWARD }], tools: RESPONSE_MAIL }, { stream, headers });
    expect(response.output.filter((item) => item.type === 'function_call')).toEqual([]);
    expect(response.output_text).toContain(SHOWN);
    expect(calls).toEqual(['outgoing_mail']);
    expect(await nextGuidance(run.monitor, `responses-${stream}`)).toContain('The call to send_email was refused, so it did not run.');
    expect(await metricValue(run.url, 'panoptes_proxy_judgments_total', { rubric: 'outgoing_mail', outcome: 'fail', action: 'block' })).toBe(1);
  });

  it('asks the user about a call the judge doubts; a plain yes lets it through', async () => {
    const { run, calls } = await start('stream', ASKING_RUBRICS);
    const headers = { 'x-panoptes-session-id': `responses-ask-${stream}` };
    const first = await respond(run.client, { input: [{ role: 'user', content: FORWARD }], tools: RESPONSE_MAIL }, { stream, headers });
    expect(first.response.output.filter((item) => item.type === 'function_call')).toEqual([]);
    expect(first.response.output_text).toContain('Before I go ahead: do you want me to run send_email');
    const second = await respond(run.client, { input: [{ role: 'user', content: FORWARD }, { role: 'assistant', content: first.response.output_text }, { role: 'user', content: 'yes, go ahead' }], tools: RESPONSE_MAIL }, { stream, headers });
    expect(second.response.output.flatMap((item) => (item.type === 'function_call' ? [JSON.parse(item.arguments).to] : []))).toEqual([ATTACKER]);
    expect(calls).toEqual(['outgoing_mail']);
  });

  it('withholds a response the judge fails (held when streamed)', async () => {
    const { run } = await start('hold');
    const headers = { 'x-panoptes-session-id': `responses-turn-${stream}` };
    const { response, events } = await respond(run.client, { input: [{ role: 'user', content: REFUND }], tools: RESPONSE_MAIL }, { stream, headers });
    expect(response.output_text).toBe(SHOWN);
    expect(JSON.stringify(events)).not.toContain('$120');
    expect(await nextGuidance(run.monitor, `responses-turn-${stream}`)).toContain('Your last response was withheld from the user');
  });
});

describe.each([false, true])('Anthropic Messages with a judge, official client (stream: %s)', (stream) => {
  const clientOf = (run: Running) => new Anthropic({ baseURL: run.url, apiKey: 'sk-ant-test', maxRetries: 0 });
  const ask = (client: Anthropic, content: string, session: string) => {
    const body = { model: 'claude-fake', max_tokens: 256, messages: [{ role: 'user' as const, content }], tools: ANTHROPIC_MAIL };
    const options = { headers: { 'x-panoptes-session-id': session } };
    return stream ? client.messages.stream(body, options).finalMessage() : client.messages.create(body, options);
  };

  it('refuses a call the judge fails; the model reads why on its next call', async () => {
    const { run, calls } = await start();
    const message = await ask(clientOf(run), FORWARD, `anthropic-${stream}`);
    expect(message.content.filter((block) => block.type === 'tool_use')).toEqual([]);
    expect(message.content.map((block) => (block.type === 'text' ? block.text : '')).join('')).toContain(SHOWN);
    expect(calls).toEqual(['outgoing_mail']);
    expect(await nextGuidance(run.monitor, `anthropic-${stream}`)).toContain(`The user never named this recipient.`);
  });

  it('asks the user about a call the judge doubts; a plain yes lets it through', async () => {
    const { run, calls } = await start('stream', ASKING_RUBRICS);
    const client = clientOf(run);
    const options = { headers: { 'x-panoptes-session-id': `anthropic-ask-${stream}` } };
    const body = (messages: Anthropic.MessageParam[]) => ({ model: 'claude-fake', max_tokens: 256, messages, tools: ANTHROPIC_MAIL });
    const send = (messages: Anthropic.MessageParam[]) => (stream ? client.messages.stream(body(messages), options).finalMessage() : client.messages.create(body(messages), options));
    const first = await send([{ role: 'user', content: FORWARD }]);
    const question = first.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    expect(question).toContain('Before I go ahead: do you want me to run send_email');
    const second = await send([{ role: 'user', content: FORWARD }, { role: 'assistant', content: question }, { role: 'user', content: 'Yes' }]);
    expect(second.content.flatMap((block) => (block.type === 'tool_use' ? [(block.input as { to: string }).to] : []))).toEqual([ATTACKER]);
    expect(calls).toEqual(['outgoing_mail']);
  });

  it('lets a call the judge passes through', async () => {
    const { run } = await start();
    const message = await ask(clientOf(run), 'Please mail me@example.com a hello.', `anthropic-ok-${stream}`);
    expect(message.content.flatMap((block) => (block.type === 'tool_use' ? [(block.input as { to: string }).to] : []))).toEqual(['me@example.com']);
  });

  it('withholds a response the judge fails (held when streamed)', async () => {
    const { run } = await start('hold');
    const message = await ask(clientOf(run), REFUND, `anthropic-turn-${stream}`);
    expect(message.content).toEqual([{ type: 'text', text: SHOWN }]);
    expect(await nextGuidance(run.monitor, `anthropic-turn-${stream}`)).toContain('Your last response was withheld from the user');
  });
});
