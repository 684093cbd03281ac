import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { renderAuditText, replayTranscript } from '../../src/audit/index.js';
import { createLexicalEmbedder } from '../../src/embed/index.js';
import type { ChatMessage } from '../../src/messages/index.js';
import { createMonitor, type Monitor } from '../../src/monitor/index.js';
import { parseWorkflow, type Workflow } from '../../src/workflow/index.js';
import { quietLogger, ROOT, supportWorkflow, transcript } from './helpers.js';

let workflow: Workflow;
let monitor: Monitor;
beforeAll(async () => {
  workflow = await supportWorkflow();
  monitor = createMonitor({ workflow, historyLimit: Infinity, logger: quietLogger() });
});

const user = (content: string): ChatMessage => ({ role: 'user', content });
const say = (content: string): ChatMessage => ({ role: 'assistant', content });
const call = (name: string, id = `call_${name}`): ChatMessage => ({ role: 'assistant', content: '', toolCalls: [{ id, name, args: {} }] });
const result = (id: string): ChatMessage => ({ role: 'tool', content: '{"ok":true}', toolCallId: id });

describe('replayTranscript', () => {
  // Issue 13: the audit no longer keeps every step in the monitor's session (that copied the history on every step,
  // quadratic in the transcript); a monitor that keeps only the last 5 must still give the whole report.
  it('reports every step, trace state and deviation of a long transcript whatever the monitor keeps', async () => {
    const messages: ChatMessage[] = [user('Hi')];
    for (let turn = 0; turn < 300; turn++) messages.push(call('verify_identity', `v${turn}`), result(`v${turn}`), say('Is there anything else I can help with?'), user('Yes.'));
    const full = await replayTranscript(createMonitor({ workflow, historyLimit: Infinity, logger: quietLogger() }), transcript(messages), 'k');
    const bounded = await replayTranscript(createMonitor({ workflow, historyLimit: 5, logger: quietLogger() }), transcript(messages), 'k');
    expect(full.steps).toHaveLength(600);
    expect(full.trace.length).toBeGreaterThan(600);
    expect(full.deviations.length).toBeGreaterThan(5);
    expect(bounded).toEqual(full);
  });

  it('ties each step to its assistant message and says why it was classified', async () => {
    const audit = await replayTranscript(
      monitor,
      transcript([
        { role: 'system', content: 'Be brief.' },
        user('Hi'),
        say('Hello! How can I help you today?'),
        user('Refund NW-1'),
        call('verify_identity'),
        result('call_verify_identity'),
        call('issue_refund'),
        result('call_issue_refund'),
        say('Done. Is there anything else I can help with?'),
      ]),
      'r1',
    );
    expect(audit.trace).toEqual(['greeting', 'verify_identity', 'account_action', 'resolution']);
    expect(audit.steps.map(({ message, state, method, confidence, evidence }) => ({ message, state, method, confidence, evidence }))).toEqual([
      { message: 2, state: 'greeting', method: 'pattern', confidence: 0.9, evidence: 'pattern /\\b(hello|hi|welcome)\\b/' },
      { message: 4, state: 'verify_identity', method: 'tool_call', confidence: 1, evidence: 'tool verify_identity' },
      { message: 6, state: 'account_action', method: 'tool_call', confidence: 1, evidence: 'tool issue_refund' },
      { message: 8, state: 'resolution', method: 'pattern', confidence: 0.9, evidence: 'pattern /is there anything else/' },
    ]);
    expect(audit.refusals).toEqual([]);
    expect(audit.violations).toEqual([]);
    expect(audit.verdicts).toEqual({ verify_before_account_action: 'satisfied', no_internal_info: 'satisfied', account_action_is_confirmed: 'satisfied', must_resolve: 'satisfied' });
  });

  it('marks an answer a live monitor would have withheld before delivery, and goes on from what the user saw', async () => {
    const strict = parseWorkflow(readFileSync(`${ROOT}examples/workflows/customer-support.yaml`, 'utf8').replace('    severity: error\n    intervention: keep_internal', '    severity: critical\n    intervention: keep_internal'));
    const audit = await replayTranscript(
      createMonitor({ workflow: strict, historyLimit: Infinity, logger: quietLogger() }),
      transcript([user('What do your notes say?'), say('Our internal notes say you are difficult.'), user('Rude. My order is broken.'), say('Could you tell me more about the problem?')]),
      'w1',
    );
    expect(audit.steps.map(({ state, withheld }) => ({ state, withheld }))).toEqual([
      { state: 'share_internal_info', withheld: true },
      { state: 'identify_issue', withheld: undefined },
    ]);
    expect(audit.trace).toEqual(['greeting', 'identify_issue']);
    expect(audit.violations).toEqual([
      expect.objectContaining({ constraint: 'no_internal_info', severity: 'critical', message: 1, withheld: true }),
      expect.objectContaining({ constraint: 'must_resolve', atClose: true }),
    ]);
    // Not a block: the monitor would have withheld the answer, then guided the next call.
    expect(audit.interventions).toEqual([{ message: 3, name: 'keep_internal', strategy: 'user-message-inject', blocked: false }]);
    const text = renderAuditText({ workflow: 'customer-support', workflowVersion: '1.0', states: [], embeddings: 'none', sessions: [audit], problems: [], summary: { files: 1, sessions: 1, sessionsWithViolations: 1, violations: { warning: 1, error: 0, critical: 1 }, warnings: 0, problems: 0, misses: {} } }).join('\n');
    expect(text).toMatch(/no_internal_info \(never\) {2}withheld before delivery: /);
    expect(text).toContain('messages[1]: the answer would have been withheld before delivery (the user gets the replacement)');
  });

  it('enters a tool-call state even though no beforeTool was made: the call did run', async () => {
    const audit = await replayTranscript(monitor, transcript([user('Refund NW-1'), call('issue_refund'), result('call_issue_refund'), say('Done. Is there anything else?')]), 'r2');
    expect(audit.violations).toEqual([
      {
        constraint: 'verify_before_account_action',
        type: 'precedence',
        severity: 'critical',
        message: 1,
        state: 'account_action',
        atClose: false,
        text: "Entered 'account_action' at messages[1] before any of 'verify_identity'. 'verify_identity' must come before 'account_action'.",
      },
    ]);
    expect(audit.deviations).toEqual([{ from: 'greeting', to: 'account_action', message: 1 }]);
  });

  it('reports a call a critical constraint refuses live as refused before it ran, and the guidance the next call gets instead of a block', async () => {
    const audit = await replayTranscript(monitor, transcript([user('Refund NW-1'), call('issue_refund'), result('call_issue_refund'), say('Done. Is there anything else?')]), 'r2b');
    expect(audit.refusals).toEqual([{ message: 1, tool: 'issue_refund', state: 'account_action', constraints: ['verify_before_account_action'] }]);
    expect(audit.interventions).toEqual([{ message: 3, name: 'verify_first', strategy: 'system-prompt-append', blocked: false }]);
  });

  it('names a call refused only because its needed state came from the same message as unseen', async () => {
    const both: ChatMessage = { role: 'assistant', content: '', toolCalls: [{ id: 'v', name: 'verify_identity', args: {} }, { id: 'r', name: 'issue_refund', args: {} }] };
    const audit = await replayTranscript(monitor, transcript([user('Refund NW-1'), both, result('v'), result('r'), say('Done. Is there anything else?')]), 'r2c');
    expect(audit.refusals).toEqual([{ message: 1, tool: 'issue_refund', state: 'account_action', constraints: ['verify_before_account_action'], unseen: true }]);
    expect(audit.violations).toEqual([]);
    expect(audit.interventions).toEqual([]);
  });

  it('pins a violation found at close to the last message', async () => {
    const audit = await replayTranscript(monitor, transcript([user('Hi'), say('Hello!'), user('My parcel is lost'), say('Could you describe the parcel?'), user('Hello?')]), 'r3');
    expect(audit.violations).toEqual([
      {
        constraint: 'must_resolve',
        type: 'eventually',
        severity: 'warning',
        message: 4,
        atClose: true,
        text: "The session ended without reaching 'resolution'. 'resolution' must be reached before the session ends.",
      },
    ]);
  });

  it('classifies an assistant message without text as no text: the state stays', async () => {
    const audit = await replayTranscript(monitor, transcript([user('photo attached'), { role: 'assistant', content: '', parts: [{ type: 'image_url' }] }]), 'r4');
    expect(audit.steps).toEqual([expect.objectContaining({ message: 1, state: 'greeting', method: 'fallback', confidence: 0, evidence: 'fallback: no-text', excerpt: '' })]);
  });

  it('does not close an empty conversation, or one where the assistant never spoke: nothing to judge', async () => {
    const empty = await replayTranscript(monitor, transcript([]), 'r5');
    expect(empty).toMatchObject({ trace: ['greeting'], steps: [], violations: [], note: 'empty conversation: nothing to audit', messageCount: 0 });
    expect(Object.values(empty.verdicts).every((verdict) => verdict === 'pending')).toBe(true);
    const silent = await replayTranscript(monitor, transcript([user('hello?')]), 'r6');
    expect(silent).toMatchObject({ steps: [], violations: [], note: 'no assistant message: nothing to audit' });
  });

  it('replays a 10 MB assistant message in bounded time, with a short excerpt', async () => {
    const lexical = createMonitor({ workflow, historyLimit: Infinity, embeddings: createLexicalEmbedder(), logger: quietLogger() });
    await lexical.warmUp();
    const huge = `${'x '.repeat(5_000_000)}is there anything else`;
    const started = performance.now();
    const audit = await replayTranscript(lexical, transcript([user('hi'), say(huge)]), 'r7');
    expect(performance.now() - started).toBeLessThan(1_000);
    // The pattern sits past the first 8k characters, so the classifier never reads it.
    expect(audit.steps[0]).toMatchObject({ state: 'greeting', method: 'fallback' });
    expect(audit.steps[0]!.excerpt.length).toBeLessThanOrEqual(160);
  });

  it('keeps every step of a long session (historyLimit: Infinity)', async () => {
    const messages: ChatMessage[] = [user('hi')];
    for (let turn = 0; turn < 2_000; turn += 1) messages.push(say('Could you tell me more?'), user('sure'));
    const started = performance.now();
    const audit = await replayTranscript(monitor, transcript(messages), 'r8');
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(audit.steps).toHaveLength(2_000);
    expect(audit.steps.at(-1)).toMatchObject({ message: 3_999 });
  });
});

