/**
 * The official `@anthropic-ai/sdk` client against the proxy's Anthropic Messages route: the support demo's early
 * refund is refused before the client sees it, streamed (`messages.stream`) and not (`messages.create`), the next
 * call is corrected, and the proxy's own errors reach the client as the SDK's API errors. Wire-level cases (event
 * names, blocks sent twice) are in anthropic.test.ts, over raw HTTP.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { hastyAgent, startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import { startProxy, type Running } from './helpers.js';
import { ANTHROPIC_TOOLS, SYSTEM } from './anthropic-helpers.js';

let running: (Running & { anthropicUpstream: FakeUpstream }) | undefined;
afterEach(async () => {
  await running?.close();
  await running?.anthropicUpstream.close();
  running = undefined;
});

async function start() {
  const anthropicUpstream = await startFakeUpstream(hastyAgent);
  const proxy = await startProxy(hastyAgent, { proxy: { anthropicUpstream: anthropicUpstream.url } });
  running = { ...proxy, anthropicUpstream };
  const sessionIds: string[] = [];
  const client = new Anthropic({
    baseURL: proxy.url,
    apiKey: 'sk-ant-test',
    maxRetries: 0,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      sessionIds.push(response.headers.get('x-panoptes-session-id') ?? '');
      return response;
    },
  });
  return { client, sessionIds, proxy };
}

describe.each([false, true])('the official Anthropic client (stream: %s)', (stream) => {
  it('gets the early refund refused, then the procedure through, in one session', async () => {
    const { client, sessionIds, proxy } = await start();
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Hi, I want a refund for order A-1042, it arrived broken.' }];
    const answers: Anthropic.Message[] = [];
    const ask = (body: Anthropic.MessageCreateParamsNonStreaming) => (stream ? client.messages.stream(body).finalMessage() : client.messages.create(body));
    for (let call = 0; call < 6; call++) {
      const answer = await ask({ model: 'claude-fake', max_tokens: 1024, system: SYSTEM, messages, tools: ANTHROPIC_TOOLS as Anthropic.Tool[] });
      answers.push(answer);
      messages.push({ role: 'assistant', content: answer.content });
      const uses = answer.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
      if (uses.length === 0) {
        if (answers.filter((each) => each.content.every((block) => block.type !== 'tool_use')).length === 2) break;
        messages.push({ role: 'user', content: 'OK, please go ahead.' });
        continue;
      }
      messages.push({ role: 'user', content: uses.map((use) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: use.name === 'issue_refund' ? 'Refund of $42 issued.' : 'Identity verified.' })) });
    }
    const names = (answer: Anthropic.Message) => answer.content.flatMap((block) => (block.type === 'tool_use' ? [block.name] : []));
    expect(names(answers[0]!)).toEqual([]);
    expect(answers[0]!.stop_reason).toBe('end_turn');
    // The user reads a neutral message; the model reads why in the next call's system prompt, once.
    expect(answers[0]!.content).toEqual([{ type: 'text', text: "I can't do that." }]);
    const systems = running!.anthropicUpstream.requests.map((request) => String((request.body as Record<string, unknown>).system));
    expect(systems[1]!.split('The call to issue_refund was refused')).toHaveLength(2);
    expect(systems.filter((system) => system.includes('The call to issue_refund was refused'))).toHaveLength(1);
    expect(names(answers[1]!)).toEqual(['verify_identity']);
    expect(names(answers[2]!)).toEqual(['issue_refund']);
    expect(new Set(sessionIds).size).toBe(1);
    expect((await proxy.monitor.report(sessionIds[0]!))?.trace).toEqual(['greeting', 'verify_identity', 'account_action', 'resolution']);
  });
});

describe('errors through the official Anthropic client', () => {
  it('a request the proxy refuses is the SDK’s API error, with Anthropic’s error shape', async () => {
    const { client } = await start();
    const error = await client.messages.create({ model: 'claude-fake', max_tokens: 10, messages: [] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(400);
  });
});
