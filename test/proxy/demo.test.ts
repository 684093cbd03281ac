/**
 * Issue 18's "done when": the official OpenAI client, pointed at the proxy, gets the demo's refusal and correction,
 * with and without streaming.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { hastyAgent } from './fake-upstream.js';
import { runDemo, startProxy, type Running } from './helpers.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe.each([false, true])('the support demo through the proxy (stream: %s)', (stream) => {
  it('refuses the early refund before the client sees it, corrects the next call, and lets the procedure through', async () => {
    running = await startProxy(hastyAgent);
    const { answers } = await runDemo(running.client, { stream });

    // 1. The model went straight for the refund: the client got no tool call, only a neutral message naming no rule.
    const first = answers[0]!;
    expect(first.message.tool_calls ?? []).toEqual([]);
    expect(first.finishReason).toBe('stop');
    expect(first.message.content).toBe("I can't do that.");

    // 2. The next call carried the workflow's guidance in its system prompt; the model verified first.
    const upstreamBodies = running.upstream.requests.filter((request) => request.path === '/v1/chat/completions').map((request) => request.body!);
    expect(String(upstreamBodies[0]!.messages[0]!.content)).not.toContain('[WORKFLOW GUIDANCE]');
    expect(String(upstreamBodies[1]!.messages[0]!.content)).toContain('[WORKFLOW GUIDANCE]');
    expect(String(upstreamBodies[1]!.messages[0]!.content)).toContain('call verify_identity first');
    // The model read why, once, in the system prompt of the call after the refusal, and not again after.
    expect(String(upstreamBodies[1]!.messages[0]!.content).split('The call to issue_refund was refused')).toHaveLength(2);
    expect(upstreamBodies.slice(2).filter((body) => String(body.messages[0]!.content).includes('The call to issue_refund was refused'))).toEqual([]);
    // What the client sends back (the message it read) places the next call in the same session.
    expect(upstreamBodies[1]!.messages[2]).toMatchObject({ role: 'assistant', content: "I can't do that." });
    expect(answers[1]!.message.tool_calls?.map((call) => (call.type === 'function' ? call.function.name : call.type))).toEqual(['verify_identity']);

    // 3. Then the refund is allowed, and the conversation resolves.
    expect(answers[2]!.message.tool_calls?.map((call) => (call.type === 'function' ? call.function.name : call.type))).toEqual(['issue_refund']);
    expect(answers.at(-1)!.message.content).toContain('Is there anything else');

    // No call named its session: each was placed by the conversation it continues, all in one session.
    expect(new Set(running.sessionIds).size).toBe(1);
    const sessionId = running.sessionIds[0]!;
    const report = await running.monitor.report(sessionId);
    expect(report?.trace).toEqual(['greeting', 'verify_identity', 'account_action', 'resolution']);
    expect(report?.refusals.map((refusal) => refusal.state)).toEqual(['account_action']);
    expect(report?.violations).toEqual([]);
  });
});

