/**
 * Legacy completions (`POST /v1/completions`) through the proxy, with the official `openai` client
 * (`completions.create`, streamed and not): the text is classified, the interventions are written into the prompt, a
 * hard block refuses the call, and a tool call an upstream puts in the answer anyway is withheld.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { answerWith, completionWith, hastyAgent } from './fake-upstream.js';
import { nextGuidance, SECRETS_WORKFLOW, startProxy, type Running } from './helpers.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** One completion through the official client, streamed (its text put together) or not. */
async function complete(client: OpenAI, prompt: string, { stream, session }: { stream: boolean; session: string }): Promise<string> {
  const headers = { 'x-panoptes-session-id': session };
  if (!stream) return (await client.completions.create({ model: 'fake-model', prompt }, { headers })).choices[0]!.text;
  let text = '';
  for await (const chunk of await client.completions.create({ model: 'fake-model', prompt, stream: true }, { headers })) text += chunk.choices[0]?.text ?? '';
  return text;
}

describe.each([false, true])('legacy completions (stream: %s)', (stream) => {
  it('classify the text: an answer that breaks a block: rule is withheld (a 403, or an error event in a stream)', async () => {
    running = await startProxy(() => ({ content: 'Sure, here are the internal notes: ...' }), { monitor: { workflow: SECRETS_WORKFLOW } });
    const blocked = await complete(running.client, 'Tell me everything.', { stream, session: 'c1' }).catch((error: unknown) => error);
    expect(blocked).toBeInstanceOf(OpenAI.APIError);
    if (!stream) expect((blocked as InstanceType<typeof OpenAI.PermissionDeniedError>).error).toMatchObject({ type: 'panoptes_violation', code: 'workflow_blocked' });
    expect(JSON.stringify((blocked as InstanceType<typeof OpenAI.APIError>).error)).not.toContain('internal notes');
    expect((await running.monitor.report('c1'))!.violations).toEqual([expect.objectContaining({ constraint: 'no_leaks', withheld: true })]);
  });

  it('a hard block refuses the call with a 403, without calling the upstream', async () => {
    running = await startProxy(() => ({ content: 'Fine.' }), { monitor: { workflow: SECRETS_WORKFLOW } });
    // The violation was delivered (a host that let the text through): the session's next call is blocked.
    await running.monitor.afterModel('c1', { content: 'Sure, here are the internal notes: ...', toolCalls: [] });
    const blocked = await complete(running.client, 'And the rest?', { stream, session: 'c1' }).catch((error: unknown) => error);
    expect(blocked).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((blocked as InstanceType<typeof OpenAI.PermissionDeniedError>).error).toMatchObject({ type: 'panoptes_violation', code: 'workflow_blocked' });
    expect(running.upstream.requests).toHaveLength(0);
  });

  it('write the interventions into the prompt: guidance before it, a blank line between', async () => {
    running = await startProxy(hastyAgent);
    // The refund of a chat completion is refused in session s1; its guidance is due on the next call, a completion.
    await running.client.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'Refund order A-1042.' }] }, { headers: { 'x-panoptes-session-id': 's1' } });
    await complete(running.client, 'Customer: refund A-1042.\nAgent:', { stream, session: 's1' });
    const prompt = String(running.upstream.requests.at(-1)!.body!.prompt);
    expect(prompt).toMatch(/^\[WORKFLOW GUIDANCE\][\s\S]*call verify_identity first[\s\S]*\n\nCustomer: refund A-1042\.\nAgent:$/);
  });
});

describe('legacy completions', () => {
  const post = (body: Record<string, unknown>) => fetch(`${running!.url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'x', ...body }) });

  it.each([
    [{ prompt: ['a', 'b'] }, 'invalid_completion_request'],
    [{ prompt: [1, 2, 3] }, 'invalid_completion_request'],
    [{}, 'invalid_completion_request'],
    [{ prompt: 'a', n: 2 }, 'unsupported_n'],
    [{ prompt: 'a', best_of: 3 }, 'unsupported_n'],
    [{ prompt: 'a', stream: 'true' }, 'invalid_stream'],
  ])('refuse %j with a 400 (%s), before the upstream', async (body, code) => {
    running = await startProxy(hastyAgent);
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
    expect(running.upstream.requests).toHaveLength(0);
  });

  it('send a JSON answer to a streamed request as the chunks of a stream', async () => {
    running = await startProxy(answerWith(JSON.stringify({ id: 'cmpl-1', object: 'text_completion', created: 1, model: 'x', choices: [{ text: 'Hello there.', index: 0, logprobs: null, finish_reason: 'length' }] })));
    const chunks = [];
    for await (const chunk of await running.client.completions.create({ model: 'x', prompt: 'Hi', stream: true })) chunks.push(chunk);
    expect(chunks.map((chunk) => [chunk.choices[0]!.text, chunk.choices[0]!.finish_reason])).toEqual([
      ['Hello there.', null],
      ['', 'length'],
    ]);
  });

  it('withhold a tool call an upstream puts in the answer anyway (a completion carries none)', async () => {
    const answer = completionWith([{ message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'verify_identity', arguments: '{}' } }] } }]);
    running = await startProxy(answerWith(JSON.stringify({ ...answer, choices: [{ ...(answer.choices as object[])[0], text: 'Hello' }] })));
    const response = await post({ prompt: 'Hi' });
    const text = await response.text();
    expect(text).not.toContain('"verify_identity"');
    expect(text).toContain("I can't do that.");
    expect(await nextGuidance(running.monitor, response.headers.get('x-panoptes-session-id')!)).toContain('The call to verify_identity was refused: a legacy completion cannot carry a tool call');
  });
});
