/**
 * The Responses API through the proxy, with the official `openai` client (`responses.create`, `responses.stream`):
 * the support demo's early refund is refused like on chat completions, streamed and not, whether the agent sends the
 * whole conversation or continues by `previous_response_id`; the guidance goes into `instructions`; the session is
 * one. The fake upstream keeps its responses and, as OpenAI, refuses a continuation that leaves a call unanswered.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { hastyAgent } from './fake-upstream.js';
import { startProxy, type Running } from './helpers.js';
import { functionCalls, runResponsesDemo } from './responses-helpers.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe.each([
  [false, false],
  [true, false],
  [false, true],
  [true, true],
])('the support demo over the Responses API (stream: %s, previous_response_id: %s)', (stream, chain) => {
  it('refuses the early refund before the client sees it, corrects the next call, and lets the procedure through', async () => {
    running = await startProxy(hastyAgent);
    const { answers } = await runResponsesDemo(running.client, { stream, chain });

    // 1. The model went straight for the refund: in its place the client got a neutral message, naming no rule.
    const first = answers[0]!.response;
    expect(functionCalls(first)).toEqual([]);
    expect(first.output.map((item) => item.type)).toEqual(['message']);
    expect(first.output_text).toBe("I can't do that.");
    // Streamed, no event the client saw carried the refund.
    expect(JSON.stringify(answers[0]!.events)).not.toContain('"name":"issue_refund"');
    if (stream) expect(answers[0]!.events.map((event) => event.type)).toContain('response.output_text.delta');

    // 2. The next call carried the workflow's guidance in its instructions; the model verified first.
    const bodies = running.upstream.requests.filter((request) => request.path === '/v1/responses').map((request) => request.body as Record<string, unknown>);
    expect(String(bodies[0]!.instructions)).not.toContain('[WORKFLOW GUIDANCE]');
    expect(String(bodies[1]!.instructions)).toContain('[WORKFLOW GUIDANCE]');
    expect(String(bodies[1]!.instructions)).toContain('call verify_identity first');
    // The model read why, once, in the instructions of the call after the refusal.
    expect(String(bodies[1]!.instructions).split('The call to issue_refund was refused')).toHaveLength(2);
    expect(String(bodies[2]!.instructions ?? '')).not.toContain('The call to issue_refund was refused');
    expect(functionCalls(answers[1]!.response).map((call) => call.name)).toEqual(['verify_identity']);

    // 3. Then the refund is allowed, and the conversation resolves.
    expect(functionCalls(answers[2]!.response).map((call) => call.name)).toEqual(['issue_refund']);
    expect(answers.at(-1)!.response.output_text).toContain('Is there anything else');

    // No call named its session: each was placed by the conversation (or the response) it continues, all in one.
    expect(new Set(running.sessionIds).size).toBe(1);
    const report = await running.monitor.report(running.sessionIds[0]!);
    expect(report?.trace).toEqual(['greeting', 'verify_identity', 'account_action', 'resolution']);
    expect(report?.refusals.map((refusal) => refusal.state)).toEqual(['account_action']);
    expect(report?.violations).toEqual([]);

    if (chain) {
      // The upstream stored the first response with the refund in it: the proxy answered it with the refusal, so the
      // continuation was accepted.
      const second = bodies[1]!.input as Array<Record<string, unknown>>;
      expect(second[0]).toMatchObject({ type: 'function_call_output', call_id: 'call_refund_0', output: expect.stringMatching(/^\[Panoptes\] The call to issue_refund was refused/) });
    }
  });
});
