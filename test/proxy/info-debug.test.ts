import { afterEach, describe, expect, it } from 'vitest';
import type { DecisionLine } from '../../src/index.js';
import { hastyAgent } from './fake-upstream.js';
import { OPENING, startProxy, type Running } from './helpers.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('GET /info', () => {
  it("reports the proxy's workflow and monitor, behind the proxy key", async () => {
    running = await startProxy(hastyAgent, { proxy: { proxyKeys: ['pk-team-a'] }, monitor: { loops: true } });
    const refused = await fetch(`${running.url}/info`);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe("Missing or unknown proxy key: send one of the proxy's keys in the x-panoptes-key header.");
    const info = (await (await fetch(`${running.url}/info`, { headers: { 'x-panoptes-key': 'pk-team-a' } })).json()) as Record<string, any>;
    expect(info).toMatchObject({ loops: true, storeHealthy: true, misses: {}, workflow: { name: 'customer-support', version: '1.0', initialState: 'greeting' } });
    expect(info.workflow.constraints.map((constraint: { name: string }) => constraint.name)).toContain('verify_before_account_action');
    expect(info.workflow.states.find((state: { name: string }) => state.name === 'account_action')).toEqual({ name: 'account_action', toolCalls: ['issue_refund', 'update_address', 'cancel_order'], patterns: 0, exemplars: 0 });
    // read-only: nothing else answers on it
    expect((await fetch(`${running.url}/info`, { method: 'POST', headers: { 'x-panoptes-key': 'pk-team-a' } })).status).toBe(404);
  });
});

describe('debug: one JSON line per decision', () => {
  it('logs the refusal of a hasty tool call made through the official openai client', async () => {
    const lines: string[] = [];
    running = await startProxy(hastyAgent, { monitor: { debug: true, logger: { warn: () => {}, debug: (line: string) => void lines.push(line) } } });
    await running.client.chat.completions.create({ model: 'x', messages: OPENING, metadata: { session_id: 'c1' } });
    const decisions = lines.map((line) => JSON.parse(line) as DecisionLine);
    expect(decisions.find((decision) => decision.verdict === 'refused')).toMatchObject({
      panoptes: 'decision',
      session: 'c1',
      phase: 'tool',
      state: 'account_action',
      constraint: 'verify_before_account_action',
      reason: expect.stringMatching(/^by workflow: /),
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('is off by default: the logger gets no decision', async () => {
    const lines: string[] = [];
    running = await startProxy(hastyAgent, { monitor: { logger: { warn: () => {}, debug: (line: string) => void lines.push(line) } } });
    await running.client.chat.completions.create({ model: 'x', messages: OPENING, metadata: { session_id: 'c1' } });
    expect((await running.monitor.report('c1'))!.refusals).toHaveLength(1);
    expect(lines).toEqual([]);
  });
});
