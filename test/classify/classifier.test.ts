import { describe, expect, it } from 'vitest';
import { createClassifier, InvalidOptionError, parseWorkflow, type AssistantTurn } from '../../src/index.js';
import { createFakeEmbedder } from '../../src/testing/index.js';

const workflow = parseWorkflow(`
name: support
states:
  - name: greeting
    initial: true
    classification: { patterns: ["\\\\bhello\\\\b"] }
    transitions: [identify_issue, verify]
  - name: identify_issue
    classification:
      patterns: ["tell me more"]
      exemplars: ["What seems to be the problem?"]
    transitions: [verify]
  - name: verify
    classification:
      tool_calls: [lookup_customer, verify_identity]
      patterns: ["account number"]
      exemplars: ["Can I have your account number?"]
      min_similarity: 0.8
    transitions: [refund, identify_issue]
  - name: refund
    classification: { tool_calls: [issue_refund, lookup_customer] }
    transitions: [wrap_up]
  - name: wrap_up
    classification:
      patterns: ["anything else", "tell me more"]
      exemplars: ["Is there anything else I can do?"]
`);

const turn = (content: string, ...tools: string[]): AssistantTurn => ({ content, toolCalls: tools.map((name, index) => ({ id: `c${index}`, name, args: {} })) });

describe('tool-call tier', () => {
  const classifier = createClassifier({ workflow });

  it('gives one state per recognised call, in call order, with confidence 1', async () => {
    const results = await classifier.classify(turn('Let me check.', 'verify_identity', 'unknown_tool', 'issue_refund'), 'greeting');
    expect(results).toEqual([
      { state: 'verify', method: 'tool_call', confidence: 1, evidence: { kind: 'tool_call', toolName: 'verify_identity', toolCallId: 'c0' } },
      { state: 'refund', method: 'tool_call', confidence: 1, evidence: { kind: 'tool_call', toolName: 'issue_refund', toolCallId: 'c2' } },
    ]);
  });

  it('resolves a tool listed by two states toward the valid move', async () => {
    // lookup_customer is listed by verify and by refund: from greeting only verify is valid, from verify staying wins.
    expect((await classifier.classify(turn('', 'lookup_customer'), 'greeting'))[0]!.state).toBe('verify');
    expect((await classifier.classify(turn('', 'lookup_customer'), 'verify'))[0]!.state).toBe('verify');
    expect((await classifier.classify(turn('', 'lookup_customer'), 'refund'))[0]!.state).toBe('refund');
  });

  it('recognises a call by its normalised name: case, spaces, invisible characters and look-alike letters', async () => {
    for (const name of ['Issue_Refund', ' issue_refund ', 'issue_refund\u0000', 'issue\u200b_refund', '\u0456ssue_r\u0435fund', '\uff49ssue_refund']) {
      const [result] = await classifier.classify(turn('', name), 'verify');
      expect(result).toEqual({ state: 'refund', method: 'tool_call', confidence: 1, evidence: { kind: 'tool_call', toolName: name, toolCallId: 'c0' } });
    }
  });

  it('falls through to the text when no call is recognised', async () => {
    expect(await classifier.classify(turn('hello there', 'unknown_tool'), 'greeting')).toEqual([
      { state: 'greeting', method: 'pattern', confidence: 0.9, evidence: { kind: 'pattern', pattern: '\\bhello\\b', match: 'hello' } },
    ]);
  });
});

describe('pattern tier', () => {
  const classifier = createClassifier({ workflow });

  it('matches case-insensitively and explains which pattern matched', async () => {
    const [result] = await classifier.classify(turn('Could you TELL ME MORE about it?'), 'greeting');
    expect(result).toMatchObject({ state: 'identify_issue', method: 'pattern', evidence: { pattern: 'tell me more', match: 'TELL ME MORE' } });
  });

  it('breaks a tie toward a valid transition', async () => {
    // "tell me more" is a pattern of identify_issue and wrap_up; from refund only wrap_up is valid.
    expect((await classifier.classify(turn('tell me more'), 'refund'))[0]!.state).toBe('wrap_up');
    expect((await classifier.classify(turn('tell me more'), 'greeting'))[0]!.state).toBe('identify_issue');
  });

  it('reads only the first maxTextLength characters', async () => {
    const bounded = createClassifier({ workflow, maxTextLength: 100 });
    const [result] = await bounded.classify(turn(`${'x'.repeat(100)} account number`), 'verify');
    expect(result).toMatchObject({ method: 'fallback', state: 'verify', evidence: { reason: 'no-match' } });
  });

  it('classifies a 10 MB response without reading all of it', async () => {
    const [result] = await classifier.classify(turn(`hello ${'a'.repeat(10_000_000)}`), 'greeting');
    expect(result!.state).toBe('greeting');
  });
});

describe('embedding tier', () => {
  const vectors = {
    'What seems to be the problem?': [1, 0, 0],
    'Can I have your account number?': [0, 1, 0],
    'Is there anything else I can do?': [0, 0, 1],
    'Whats going wrong?': [0.95, 0.31, 0],
    'Your id, please': [0.1, 0.75, 0.65],
    'Your ID please?': [0.05, 0.79, 0.6],
  };

  it('picks the most similar exemplar above its state minimum, and says which', async () => {
    const classifier = createClassifier({ workflow, embeddings: createFakeEmbedder({ vectors }) });
    await classifier.warmUp();
    const [result] = await classifier.classify(turn('Whats going wrong?'), 'greeting');
    expect(result).toMatchObject({ state: 'identify_issue', method: 'embedding', evidence: { kind: 'exemplar', exemplar: 'What seems to be the problem?' } });
    expect(result!.confidence).toBeCloseTo(0.95, 2);
  });

  it('ignores an exemplar below its state min_similarity', async () => {
    const classifier = createClassifier({ workflow, embeddings: createFakeEmbedder({ vectors }) });
    await classifier.warmUp();
    // 0.75 to verify's exemplar (its minimum is 0.8), 0.65 to wrap_up's (minimum 0.7): nothing qualifies.
    const [result] = await classifier.classify(turn('Your id, please'), 'verify');
    expect(result).toMatchObject({ method: 'fallback', state: 'verify', evidence: { reason: 'no-match' } });
  });

  it('breaks near-ties toward a valid transition', async () => {
    const classifier = createClassifier({ workflow, embeddings: createFakeEmbedder({ vectors: { ...vectors, tie: [0.71, 0, 0.7] } }) });
    await classifier.warmUp();
    // cosine 0.712 to identify_issue's exemplar and 0.702 to wrap_up's: a near-tie, settled by where the session is.
    expect((await classifier.classify(turn('tie'), 'refund'))[0]!.state).toBe('wrap_up');
    expect((await classifier.classify(turn('tie'), 'greeting'))[0]!.state).toBe('identify_issue');
  });

  it('embeds the exemplars once per workflow and embedder', async () => {
    const embedder = createFakeEmbedder({ vectors });
    await createClassifier({ workflow, embeddings: embedder }).warmUp();
    await createClassifier({ workflow, embeddings: embedder }).warmUp();
    expect(embedder.calls.filter((text) => text === 'Can I have your account number?')).toHaveLength(1);
  });

  // Regression (issue 13): the first calls of a process skipped the exemplar tier while the exemplars were embedded.
  it('waits for the exemplars on the first call, within the embedding budget', async () => {
    const classifier = createClassifier({ workflow, embeddings: createFakeEmbedder({ vectors }) });
    expect((await classifier.classify(turn('Whats going wrong?'), 'greeting'))[0]).toMatchObject({ method: 'embedding', state: 'identify_issue' });
  });

  it('falls back saying so when the exemplars take longer than the embedding budget, and uses them once embedded', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const embeddings = createFakeEmbedder({ vectors });
    const slow = { embedQuery: embeddings.embedQuery, embedDocuments: async (texts: string[]) => (await released, embeddings.embedDocuments(texts)) };
    const classifier = createClassifier({ workflow, embeddings: slow, embeddingTimeoutMs: 10 });
    expect((await classifier.classify(turn('Whats going wrong?'), 'greeting'))[0]).toMatchObject({ method: 'fallback', evidence: { reason: 'warming-up' } });
    release();
    await classifier.warmUp();
    expect((await classifier.classify(turn('Whats going wrong?'), 'greeting'))[0]!.method).toBe('embedding');
  });

  // Regression (issue 13): an embedDocuments that never answered left every call falling back for ever, silently.
  it('gives up on a warm-up that never finishes after warmUpTimeoutMs: the warm-up rejects and calls say it failed', async () => {
    const embeddings = createFakeEmbedder({ vectors });
    const hung = { embedQuery: embeddings.embedQuery, embedDocuments: () => new Promise<number[][]>(() => {}) };
    const classifier = createClassifier({ workflow, embeddings: hung, embeddingTimeoutMs: 5, warmUpTimeoutMs: 20 });
    await expect(classifier.warmUp()).rejects.toThrow("Embedding the workflow's exemplars took longer than 20 ms (warmUpTimeoutMs).");
    const [result] = await classifier.classify(turn('Whats going wrong?'), 'greeting');
    expect(result).toMatchObject({ method: 'fallback', evidence: { reason: 'warming-up' } });
  });

  it('falls back, never rejects, when the embedder throws, returns garbage or hangs', async () => {
    let mode: 'ok' | 'throw' | 'nan' | 'hang' = 'ok';
    const embeddings = createFakeEmbedder({
      embed: (text) => {
        if (mode === 'throw') throw new Error('model crashed');
        if (mode === 'nan') return [Number.NaN, 0, 0];
        if (mode === 'hang') return new Promise<number[]>(() => {});
        return vectors[text as keyof typeof vectors] ?? [0, 0, 0];
      },
    });
    const classifier = createClassifier({ workflow, embeddings, embeddingTimeoutMs: 20 });
    await classifier.warmUp();
    for (const [next, text] of [['throw', 'a'], ['nan', 'b'], ['hang', 'c']] as const) {
      mode = next;
      const [result] = await classifier.classify(turn(text), 'greeting');
      expect(result, next).toMatchObject({ method: 'fallback', state: 'greeting', evidence: { reason: 'embedding-failed' } });
    }
  });

  it('reports a failing warm-up as an embedding failure', async () => {
    const classifier = createClassifier({ workflow, embeddings: createFakeEmbedder({ embed: () => Promise.reject(new Error('offline')) }) });
    await expect(classifier.warmUp()).rejects.toThrow('offline');
    expect((await classifier.classify(turn('anything'), 'greeting'))[0]).toMatchObject({ evidence: { reason: 'embedding-failed', error: new Error('offline') } });
  });
});

describe('fallback', () => {
  it('stays in the current state with confidence 0 when there is no text and no known call', async () => {
    const classifier = createClassifier({ workflow });
    expect(await classifier.classify(turn('   '), 'verify')).toEqual([
      { state: 'verify', method: 'fallback', confidence: 0, evidence: { kind: 'fallback', reason: 'no-text' } },
    ]);
  });

  it('rejects a bad maxTextLength at construction', () => {
    expect(() => createClassifier({ workflow, maxTextLength: 0 })).toThrow(InvalidOptionError);
    expect(() => createClassifier({ workflow, maxTextLength: 0 })).toThrow('Invalid option `maxTextLength`: received 0.');
  });
});
