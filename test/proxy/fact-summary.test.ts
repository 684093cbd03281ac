/**
 * The known facts of a proxy's rulebase reach the model: each request's system prompt carries `[KNOWN FACTS]` with
 * what the recorded tool results established, as the in-process hosts do; `factSummary: false` leaves requests alone,
 * and a summary that fails is logged once while the request goes on.
 */
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { loadWorkflow } from '../../src/index.js';
import { createProxyRules, type ProxyRulesOptions } from '../../src/proxy/index.js';
import { loadRulebase } from '../../src/rules/index.js';
import type { ScriptedTurn } from './fake-upstream.js';
import { startProxy, type Running } from './helpers.js';
import { OPEN_WORKFLOW, REFUND_RULES } from './rules-helpers.js';

const TOOLS: ChatCompletionTool[] = ['verify_identity', 'issue_refund'].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: { order_id: { type: 'string' } } } } }));
const VERIFY: ScriptedTurn = { content: '', toolCalls: [{ id: 'call_verify', name: 'verify_identity', args: { order_id: 'A-1042' } }] };
const SESSION = { 'x-panoptes-session-id': 'facts-1' };

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** Verifies the order, sends the result back, and returns the system prompt of the request that carried it. */
async function systemPromptAfterVerification(options: Partial<ProxyRulesOptions> = {}, breakSummary = false): Promise<string> {
  const rules = createProxyRules({ rulebase: await loadRulebase(REFUND_RULES), ...options });
  const turns: ScriptedTurn[] = [VERIFY, { content: 'Thanks, you are verified.' }];
  running = await startProxy(() => turns.shift() ?? { content: 'Done.' }, { monitor: { workflow: await loadWorkflow(OPEN_WORKFLOW) }, proxy: { rules } });
  if (breakSummary) {
    rules.sentinel('facts-1').facts.summarize = () => {
      throw new Error('summary store down');
    };
  }
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'I want a refund for order A-1042.' }];
  const first = (await running.client.chat.completions.create({ model: 'fake-model', messages, tools: TOOLS }, { headers: SESSION })).choices[0]!.message;
  expect(first.tool_calls?.map((call) => call.type === 'function' && call.function.name)).toEqual(['verify_identity']);
  messages.push({ role: 'assistant', content: null, tool_calls: first.tool_calls! }, { role: 'tool', tool_call_id: first.tool_calls![0]!.id, content: '{"verified": true}' });
  const second = await running.client.chat.completions.create({ model: 'fake-model', messages, tools: TOOLS }, { headers: SESSION });
  expect(second.choices[0]!.message.content).toBe('Thanks, you are verified.');
  const sent = running.upstream.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
  return sent.messages.flatMap((message) => (message.role === 'system' ? [String(message.content)] : [])).join('\n');
}

describe('known facts behind the proxy', () => {
  it("puts what the recorded results established into the next request's system prompt", async () => {
    const system = await systemPromptAfterVerification();
    expect(system).toContain('[KNOWN FACTS]');
    expect(system).toMatch(/verified.*A-1042/);
  });

  it('leaves the requests alone with factSummary: false', async () => {
    expect(await systemPromptAfterVerification({ factSummary: false })).not.toContain('[KNOWN FACTS]');
  });

  it('sends the request without the facts when the summary fails, and logs it once', async () => {
    const system = await systemPromptAfterVerification({}, true);
    expect(system).not.toContain('[KNOWN FACTS]');
    const logged = running!.logger.lines.filter((line) => line.includes('Summarising the known facts failed'));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('summary store down');
  });
});
