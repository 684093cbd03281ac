/**
 * A non-streamed answer that breaks a critical constraint never reaches the client: the proxy asks the monitor to
 * withhold it, and the client gets the workflow's user message instead (or a 403 under a `block:` intervention);
 * the guidance goes into the next call. Through the official `openai` client, on every route.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_USER_MESSAGE, type Workflow } from '../../src/index.js';
import { createMessage } from './anthropic-helpers.js';
import type { ProxyOptions } from '../../src/proxy/index.js';
import { OPENING, TOOLS, type Running } from './helpers.js';
import { GUIDANCE, LEAK, leakBlocked, leakCritical, leakWithMessage, SAFE, SECRET, SESSION, startAnswering, USER_MESSAGE } from './withheld-helpers.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** The proxy over a model that answers `answers` in turn, monitoring `workflow`. */
async function start(workflow: Workflow, answers: string[], options: { anthropic?: boolean; proxy?: Partial<ProxyOptions> } = {}) {
  return (running = await startAnswering(workflow, answers, options));
}

/** The text of a request's messages (the guidance goes into the system prompt, or a note after the last message). */
const textOf = (body: { messages: Array<{ role: string; content?: unknown }> } | undefined) => JSON.stringify(body?.messages ?? []);

describe('chat completions: a leaking answer is withheld', () => {
  it('replaces its text: the violation is recorded as withheld, and the next call carries the guidance', async () => {
    const { client, monitor, upstream } = await start(leakCritical, [LEAK, SAFE]);
    const first = await client.chat.completions.create({ model: 'x', messages: OPENING, tools: TOOLS }, SESSION);
    expect(textOf(upstream.requests[0]!.body)).not.toContain(GUIDANCE);

    expect(first.choices[0]!.message.content).toBe(DEFAULT_USER_MESSAGE);
    expect(first.choices[0]!.finish_reason).toBe('content_filter');
    expect(JSON.stringify(first)).not.toContain(SECRET);
    const report = (await monitor.report('s1'))!;
    expect(report.violations).toEqual([expect.objectContaining({ constraint: 'no_internal_info', state: 'share_internal_info', withheld: true })]);
    expect(report.trace).not.toContain('share_internal_info');

    const second = await client.chat.completions.create({ model: 'x', messages: [...OPENING, { role: 'assistant', content: first.choices[0]!.message.content }, { role: 'user', content: 'It arrived broken.' }], tools: TOOLS }, SESSION);
    expect(textOf(upstream.requests[1]!.body)).toContain(GUIDANCE);
    expect(second.choices[0]!.message.content).toBe(SAFE);
  });

  it("uses the constraint's user_message when it has one", async () => {
    const { client } = await start(leakWithMessage, [LEAK]);
    const completion = await client.chat.completions.create({ model: 'x', messages: OPENING }, SESSION);
    expect(completion.choices[0]!.message.content).toBe(USER_MESSAGE);
  });

  it('answers 403 workflow_blocked under a block: intervention; the next call carries the guidance', async () => {
    const { client, monitor, upstream } = await start(leakBlocked, [LEAK, SAFE]);
    const failure = await client.chat.completions.create({ model: 'x', messages: OPENING, tools: TOOLS }, SESSION).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(failure).toMatchObject({ status: 403, code: 'workflow_blocked', type: 'panoptes_violation' });
    expect(JSON.stringify((failure as InstanceType<typeof OpenAI.APIError>).error)).not.toContain(SECRET);
    expect((await monitor.report('s1'))!.violations).toEqual([expect.objectContaining({ constraint: 'no_internal_info', withheld: true })]);

    const second = await client.chat.completions.create({ model: 'x', messages: [...OPENING, { role: 'user', content: 'It arrived broken.' }], tools: TOOLS }, SESSION);
    expect(textOf(upstream.requests[1]!.body)).toContain(GUIDANCE);
    expect(second.choices[0]!.message.content).toBe(SAFE);
  });

  it('leaves a compliant answer unchanged', async () => {
    const { client, monitor } = await start(leakCritical, [SAFE]);
    const completion = await client.chat.completions.create({ model: 'x', messages: OPENING, tools: TOOLS }, SESSION);
    expect(completion.choices[0]!.message.content).toBe(SAFE);
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect((await monitor.report('s1'))!.violations).toEqual([]);
  });
});

describe('the other routes: a leaking answer is replaced', () => {
  it('the Responses API', async () => {
    const { client, monitor } = await start(leakCritical, [LEAK]);
    const response = await client.responses.create({ model: 'x', instructions: OPENING[0]!.content as string, input: OPENING[1]!.content as string }, SESSION);
    expect(response.output_text).toBe(DEFAULT_USER_MESSAGE);
    expect(JSON.stringify(response)).not.toContain(SECRET);
    expect((await monitor.report('s1'))!.violations).toEqual([expect.objectContaining({ withheld: true })]);
  });

  it('legacy completions', async () => {
    const { client } = await start(leakCritical, [LEAK]);
    const completion = await client.completions.create({ model: 'x', prompt: 'What do your internal notes say about me?' }, SESSION);
    expect(completion.choices[0]!.text).toBe(DEFAULT_USER_MESSAGE);
    expect(JSON.stringify(completion)).not.toContain(SECRET);
  });

  it('Anthropic Messages', async () => {
    const { url } = await start(leakCritical, [LEAK], { anthropic: true });
    const { message } = await createMessage(url, { system: OPENING[0]!.content, messages: [{ role: 'user', content: OPENING[1]!.content }] }, SESSION);
    expect(message.content).toEqual([{ type: 'text', text: DEFAULT_USER_MESSAGE }]);
    expect(JSON.stringify(message)).not.toContain(SECRET);
  });
});

describe('streams: text is watched as it streams, and cut where it breaks a critical rule', () => {
  it('chat completions: the stream ends cleanly with the replacement; the leak never reaches the client', async () => {
    const { client, monitor, upstream } = await start(leakCritical, [LEAK, SAFE]);
    const runner = client.chat.completions.stream({ model: 'x', messages: OPENING, tools: TOOLS }, SESSION);
    const completion = await runner.finalChatCompletion();
    const { content } = completion.choices[0]!.message;

    expect(content).toMatch(new RegExp(`\\n\\n${DEFAULT_USER_MESSAGE.replace(/[.?]/g, '\\$&')}$`));
    expect(content).not.toContain(SECRET);
    expect(content).not.toContain('system prompt');
    expect(completion.choices[0]!.finish_reason).toBe('content_filter');
    expect((await monitor.report('s1'))!.violations).toEqual([expect.objectContaining({ constraint: 'no_internal_info', withheld: true })]);

    await client.chat.completions.create({ model: 'x', messages: [...OPENING, { role: 'assistant', content }, { role: 'user', content: 'It arrived broken.' }] }, SESSION);
    expect(textOf(upstream.requests[1]!.body)).toContain(GUIDANCE);
  });

  it('chat completions under a block: intervention: the stream ends with an error event', async () => {
    const { client } = await start(leakBlocked, [LEAK]);
    const failure = await client.chat.completions
      .stream({ model: 'x', messages: OPENING }, SESSION)
      .finalChatCompletion()
      .catch((error: unknown) => error);
    expect(String((failure as Error)?.message)).toContain(DEFAULT_USER_MESSAGE);
  });

  it('legacy completions: cut the same way', async () => {
    const { client } = await start(leakCritical, [LEAK]);
    const stream = await client.completions.create({ model: 'x', prompt: 'What do your internal notes say about me?', stream: true }, SESSION);
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.text ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toContain(DEFAULT_USER_MESSAGE);
    expect(text).not.toContain(SECRET);
    expect(finish).toBe('content_filter');
  });

  it('chat completions: a compliant stream is unchanged', async () => {
    const { client } = await start(leakCritical, [SAFE]);
    const completion = await client.chat.completions.stream({ model: 'x', messages: OPENING }, SESSION).finalChatCompletion();
    expect(completion.choices[0]!.message.content).toBe(SAFE);
    expect(completion.choices[0]!.finish_reason).toBe('stop');
  });
});

describe("streams with textPolicy: 'hold': text waits for the classification", () => {
  it('a leaking answer: the client gets the replacement alone, nothing of the leak', async () => {
    const { client, monitor } = await start(leakCritical, [LEAK], { proxy: { textPolicy: 'hold' } });
    const completion = await client.chat.completions.stream({ model: 'x', messages: OPENING }, SESSION).finalChatCompletion();
    expect(completion.choices[0]!.message.content).toBe(DEFAULT_USER_MESSAGE);
    expect(completion.choices[0]!.finish_reason).toBe('content_filter');
    expect((await monitor.report('s1'))!.violations).toEqual([expect.objectContaining({ withheld: true })]);
  });

  it('a compliant answer goes out whole once classified', async () => {
    const { client } = await start(leakCritical, [SAFE], { proxy: { textPolicy: 'hold' } });
    const completion = await client.chat.completions.stream({ model: 'x', messages: OPENING }, SESSION).finalChatCompletion();
    expect(completion.choices[0]!.message.content).toBe(SAFE);
    expect(completion.choices[0]!.finish_reason).toBe('stop');
  });

  it('past its bound in characters, the text streams (a leak is then cut as with stream)', async () => {
    const { client } = await start(leakCritical, [SAFE, `${SAFE} ${LEAK}`], { proxy: { textPolicy: 'hold', holdTextChars: 100 } });
    const safe = await client.chat.completions.stream({ model: 'x', messages: OPENING }, SESSION).finalChatCompletion();
    expect(safe.choices[0]!.message.content).toBe(SAFE);
    const leak = await client.chat.completions.stream({ model: 'x', messages: OPENING }, SESSION).finalChatCompletion();
    expect(leak.choices[0]!.message.content).toContain(SAFE);
    expect(leak.choices[0]!.message.content).toContain(DEFAULT_USER_MESSAGE);
    expect(leak.choices[0]!.message.content).not.toContain(SECRET);
  });

  it('createProxy refuses another textPolicy', async () => {
    await expect(start(leakCritical, [SAFE], { proxy: { textPolicy: 'later' as 'hold' } })).rejects.toThrow(/textPolicy/);
  });
});
