import { describe, expect, it } from 'vitest';
import { createConversationJudge, createJudge, parseRubrics, scriptedJudge, type ChatMessage, type Judge } from '../../src/index.js';

const rubrics = (everyTurns = 2, onFail = 'intervene') =>
  parseRubrics(`
rubrics:
  - id: on_topic
    description: The agent stays on the user's request.
    scope: conversation
    every_turns: ${everyTurns}
    criteria: [{ id: topic, description: on topic }]
    pass_at: 1
    on_fail: ${onFail}
    on_error: allow
  - id: polite
    description: Polite.
    scope: turn
    criteria: [{ id: polite, description: polite }]
    pass_at: 1
    on_fail: warn
    on_error: allow
`);
const offTopic = scriptedJudge(({ judged }) => ({ criteria: [{ id: 'topic', score: judged.includes('lottery') ? 0 : 1, reasoning: judged.includes('lottery') ? 'lottery talk' : 'ok', evidence: [] }], confidence: 0.9 }));
const quiet = () => {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => void warnings.push(message) };
};
const chat = (...texts: string[]): ChatMessage[] => texts.map((content, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', content }));

describe('createConversationJudge', () => {
  it('judges every every_turns turns of a session, in the background; a fail is guidance taken once', async () => {
    const judge = createJudge({ model: offTopic, rubrics: rubrics(), logger: quiet() });
    const conversation = createConversationJudge(judge, { logger: quiet() });
    let read = 0;
    conversation.turn('s1', { messages: () => (read++, chat('Hi', 'Buy a lottery ticket!')) });
    expect(read).toBe(0); // turn 1: not due, the messages are never read
    conversation.turn('s1', { messages: () => (read++, chat('Hi', 'Buy a lottery ticket!')) });
    expect(conversation.takeGuidance('s1')).toBeUndefined(); // still running: turn() returned at once
    await conversation.settled();
    expect(read).toBe(1);
    expect(conversation.takeGuidance('s1')).toBe("[CONVERSATION REVIEW] A policy check did not pass: The agent stays on the user's request. lottery talk Correct course in your next reply.");
    expect(conversation.takeGuidance('s1')).toBeUndefined();
    expect(conversation.stats()).toEqual({ turns: 2, started: 1, skipped: 0, failures: 0 });
  });

  it('a warned turn makes the rubrics due at once', async () => {
    const judge = createJudge({ model: offTopic, rubrics: rubrics(5), logger: quiet() });
    const conversation = createConversationJudge(judge, { logger: quiet() });
    conversation.turn('s1', { messages: chat('Hi', 'lottery'), warned: true });
    await conversation.settled();
    expect(judge.stats().judgments).toBe(1);
  });

  it('warn: no guidance; the first warning is logged and reported', async () => {
    const logger = quiet();
    const reports: unknown[] = [];
    const judge = createJudge({ model: offTopic, rubrics: rubrics(1, 'warn'), logger: quiet() });
    const conversation = createConversationJudge(judge, { logger, onJudgment: (report) => void reports.push(report) });
    conversation.turn('s1', { messages: chat('Hi', 'lottery') });
    conversation.turn('s2', { messages: chat('Hi', 'lottery') });
    await conversation.settled();
    expect(conversation.takeGuidance('s1')).toBeUndefined();
    expect(reports).toHaveLength(2);
    expect(logger.warnings).toHaveLength(1);
  });

  it('is bounded: one judgment per session at a time, maxInFlight in all; the rest are skipped and counted', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = Object.assign(async (request: Parameters<typeof offTopic>[0]) => (await gate, offTopic(request)), { modelId: 'slow' });
    const judge = createJudge({ model: slow, rubrics: rubrics(1), logger: quiet() });
    const conversation = createConversationJudge(judge, { maxInFlight: 2, logger: quiet() });
    conversation.turn('s1', { messages: chat('a') });
    conversation.turn('s1', { messages: chat('b') }); // s1 is being judged
    conversation.turn('s2', { messages: chat('c') });
    conversation.turn('s3', { messages: chat('d') }); // two in flight
    release();
    await conversation.settled();
    expect(conversation.stats()).toMatchObject({ turns: 4, started: 2, skipped: 2 });
  });

  it('onGuidance takes each finding as it is written (takeGuidance then has none); a throwing onGuidance is counted and logged once', async () => {
    const judge = createJudge({ model: offTopic, rubrics: rubrics(1), logger: quiet() });
    const delivered: Array<[string, string]> = [];
    const conversation = createConversationJudge(judge, { logger: quiet(), onGuidance: async (sessionId, text) => void delivered.push([sessionId, text]) });
    conversation.turn('s1', { messages: chat('Hi', 'Buy a lottery ticket!') });
    await conversation.settled();
    expect(delivered).toEqual([['s1', expect.stringContaining('[CONVERSATION REVIEW]')]]);
    expect(conversation.takeGuidance('s1')).toBeUndefined();

    const logger = quiet();
    const failing = createConversationJudge(judge, { logger, onGuidance: () => { throw new Error('store down'); } });
    failing.turn('s1', { messages: chat('Hi', 'Buy a lottery ticket!') });
    failing.turn('s2', { messages: chat('Hi', 'Buy a lottery ticket!') });
    await failing.settled();
    expect(failing.stats().failures).toBe(2);
    expect(logger.warnings).toHaveLength(1);
  });

  it('a judge that throws outside its own error handling is counted and logged once; the agent never sees it', async () => {
    const logger = quiet();
    const broken = { rubrics: rubrics(1), judge: async () => Promise.reject(new Error('broken judge')) } as unknown as Judge;
    const conversation = createConversationJudge(broken, { logger });
    conversation.turn('s1', { messages: chat('a') });
    conversation.turn('s2', { messages: chat('b') });
    await conversation.settled();
    expect(conversation.stats().failures).toBe(2);
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toContain('judging the conversation failed');
  });

  it('a hanging judge: the timeout resolves by on_error (allow: no guidance), counted by the judge', async () => {
    const hanging = Object.assign(() => new Promise<never>(() => undefined), { modelId: 'hangs' });
    const judge = createJudge({ model: hanging, rubrics: rubrics(1), timeoutMs: 30, logger: quiet() });
    const conversation = createConversationJudge(judge, { logger: quiet() });
    conversation.turn('s1', { messages: chat('a') });
    await conversation.settled();
    expect(judge.stats().errors.timeout).toBe(1);
    expect(conversation.takeGuidance('s1')).toBeUndefined();
  });

  it('over budget: a judgment past the session budget is an error resolved by on_error (allow: no guidance), counted', async () => {
    const judge = createJudge({ model: offTopic, rubrics: rubrics(1), budget: { session: { calls: 1 } }, cache: false, logger: quiet() });
    const conversation = createConversationJudge(judge, { logger: quiet() });
    conversation.turn('s1', { messages: chat('Hi', 'lottery') });
    await conversation.settled();
    expect(conversation.takeGuidance('s1')).toContain('[CONVERSATION REVIEW]');
    conversation.turn('s1', { messages: chat('Hi', 'lottery', 'more lottery') });
    await conversation.settled();
    expect(judge.stats()).toMatchObject({ calls: 1, errors: expect.objectContaining({ budget: 1 }) });
    expect(conversation.takeGuidance('s1')).toBeUndefined();
  });

  it('forgets the least recent session past maxSessions', async () => {
    const judge = createJudge({ model: offTopic, rubrics: rubrics(2), logger: quiet() });
    const conversation = createConversationJudge(judge, { maxSessions: 1, logger: quiet() });
    conversation.turn('s1', { messages: chat('lottery') });
    conversation.turn('s2', { messages: chat('lottery') }); // s1's count is forgotten
    conversation.turn('s1', { messages: chat('lottery') }); // s1 starts over at turn 1: not due
    await conversation.settled();
    expect(judge.stats().judgments).toBe(0);
  });
});
