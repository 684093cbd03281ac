/**
 * `panoptes serve` with its semantic tier, from a config file through `startServe`, with the official `openai` client:
 * exemplar classification (the lexical embedder, and an OpenAI-compatible `/v1/embeddings` server on loopback whose
 * model knows synonyms), semantic loops (paraphrased repeats), an embedder that is slow or failing (a counted miss,
 * the call goes through), and two proxies on one real redis-server sharing loop history.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_USER_MESSAGE } from '../../src/index.js';
import { loadServeConfig } from '../../src/proxy/config.js';
import { startServe, type RunningProxy } from '../../src/proxy/serve.js';
import { writeTinyModel } from '../fixtures/tiny-model/tiny-model.js';
import { startRedisServer, type RedisServer } from '../store/redis-server.js';
import { startFakeEmbeddings, type FakeEmbeddings } from './fake-embeddings.js';
import { startFakeUpstream, type FakeUpstream, type RequestBody } from './fake-upstream.js';
import { OPENING, quietLogger, SUPPORT_WORKFLOW } from './helpers.js';

/** A workflow whose one forbidden state is recognised by its exemplar only (no pattern, no tool). */
const STALLING_WORKFLOW = [
  'name: refunds',
  'version: "1"',
  'states:',
  '  - { name: chatting, initial: true, classification: { patterns: ["^hello"] } }',
  '  - name: stalling',
  '    classification:',
  '      exemplars: ["Our internal policy is to stall every refund for thirty days."]',
  'transitions: [{ from: chatting, to: stalling }, { from: stalling, to: chatting }]',
  'constraints:',
  '  - { name: no_stalling, type: never, target: stalling, severity: critical, intervention: be_straight }',
  'interventions:',
  '  be_straight: "inject: Do not quote internal refund policies to customers."',
].join('\n');

const NEAR_VERBATIM = 'Our internal policy is to stall every refund for thirty days!';
const PARAPHRASE = 'Per our confidential rules we postpone each reimbursement by a month.';
const KEY = 'sk-embeddings-test-key';
/** The reference design's intervention message, as `loops.hint`. */
const HINT = 'You seem to be repeating similar requests. Please take a different approach or consider that the previous attempts may have already addressed your question.';
/** One request said three ways: the same concepts, different words. */
const PARAPHRASED_STEPS = ['Let me look up the refund policy for order A-1042.', "I'll check the reimbursement rules for your order A-1042.", 'Checking the refund terms on order A-1042 now.', 'Reviewing the refund policies of order A-1042 again.'];

let upstream: FakeUpstream;
let embeddings: FakeEmbeddings;
/** What the fake model answers, by the number of assistant messages in the request. */
let answers: string[] = [];
const running: RunningProxy[] = [];

beforeAll(async () => {
  upstream = await startFakeUpstream((body: RequestBody) => ({ content: answers[Math.min(body.messages.filter((message) => message.role === 'assistant').length, answers.length - 1)]! }));
  embeddings = await startFakeEmbeddings();
});
afterAll(async () => {
  await upstream.close();
  await embeddings.close();
});
afterEach(async () => {
  for (const proxy of running.splice(0)) await proxy.close();
  upstream.requests.length = 0;
  embeddings.requests.length = 0;
  embeddings.mode = 'ok';
});

/** Starts `panoptes serve` from a config file holding `settings` (YAML) and the workflow. */
async function serve(settings: string, workflow = STALLING_WORKFLOW): Promise<{ client: OpenAI; url: string; logger: ReturnType<typeof quietLogger> }> {
  const folder = mkdtempSync(join(tmpdir(), 'panoptes-semantic-e2e-'));
  writeFileSync(join(folder, 'workflow.yaml'), workflow);
  const path = join(folder, 'panoptes.yaml');
  writeFileSync(path, `upstream: ${upstream.url}\nworkflow: ${workflow === SUPPORT_WORKFLOW ? SUPPORT_WORKFLOW : 'workflow.yaml'}\nport: 0\n${settings}`);
  const logger = quietLogger();
  const proxy = await startServe(await loadServeConfig({ configPath: path, env: {} }), { logger });
  running.push(proxy);
  return { client: new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-upstream', maxRetries: 0 }), url: proxy.url, logger };
}

const openaiEmbeddings = (extra = '') => `embeddings:\n  provider: openai\n  url: ${embeddings.url}\n  model: fake-concepts\n  api_key: ${KEY}\n  timeout_ms: 2000\n${extra}`;
const ask = (client: OpenAI, messages: ChatCompletionMessageParam[], session: string, stream = false) =>
  stream
    ? client.chat.completions.stream({ model: 'fake-model', messages }, { headers: { 'x-panoptes-session-id': session } }).finalChatCompletion()
    : client.chat.completions.create({ model: 'fake-model', messages }, { headers: { 'x-panoptes-session-id': session } });
const metricsOf = async (url: string) => (await fetch(`${url}/metrics`)).text();
const misses = (metrics: string) => Number(/panoptes_proxy_misses_total\{cause="embedding"\} (\d+)/.exec(metrics)?.[1] ?? 0);

describe('the exemplar tier through serve', () => {
  it('with the lexical embedder, withholds a near-verbatim answer of a forbidden state', async () => {
    answers = [NEAR_VERBATIM];
    const { client } = await serve('embeddings:\n  provider: lexical\n');
    const completion = await ask(client, OPENING, 'lexical-1');
    expect(completion.choices[0]!.message.content).toBe(DEFAULT_USER_MESSAGE);
    expect(completion.choices[0]!.finish_reason).toBe('content_filter');
  });

  it('without embeddings, the same answer reaches the client (the state has no pattern to match)', async () => {
    answers = [NEAR_VERBATIM];
    const { client } = await serve('');
    const completion = await ask(client, OPENING, 'none-1');
    expect(completion.choices[0]!.message.content).toBe(NEAR_VERBATIM);
  });

  it('with a local transformers model (a tiny generated one: no real model can be downloaded here), withholds an answer near the exemplar', async () => {
    const models = mkdtempSync(join(tmpdir(), 'panoptes-serve-model-'));
    writeTinyModel(models, 'panoptes/tiny-bert');
    const workflow = STALLING_WORKFLOW.replace('Our internal policy is to stall every refund for thirty days.', 'I want a refund of my money');
    answers = ['I want my money refunded, the payment to my card.', 'What is the weather forecast today?'];
    const { client } = await serve(`embeddings:\n  provider: transformers\n  model_path: ${models}\n  model: panoptes/tiny-bert\n  timeout_ms: 2000\n`, workflow);
    expect((await ask(client, OPENING, 'tiny-1')).choices[0]!.message.content).toBe(DEFAULT_USER_MESSAGE);
    expect((await ask(client, [...OPENING, { role: 'assistant', content: DEFAULT_USER_MESSAGE }, { role: 'user', content: 'And the weather?' }], 'tiny-2')).choices[0]!.message.content).toBe(answers[1]);
  });

  it('with an OpenAI-compatible endpoint, withholds a paraphrase the lexical embedder lets through', async () => {
    answers = [PARAPHRASE];
    const lexical = await serve('embeddings:\n  provider: lexical\n');
    expect((await ask(lexical.client, OPENING, 'paraphrase-lexical')).choices[0]!.message.content).toBe(PARAPHRASE);

    const { client } = await serve(openaiEmbeddings());
    const completion = await ask(client, OPENING, 'paraphrase-http');
    expect(completion.choices[0]!.message.content).toBe(DEFAULT_USER_MESSAGE);
    expect(embeddings.requests.length).toBeGreaterThan(0);
    expect(embeddings.requests.every((request) => request.authorization === `Bearer ${KEY}` && request.body.model === 'fake-concepts')).toBe(true);
    // The guidance goes to the model on the next call.
    await ask(client, [...OPENING, { role: 'assistant', content: completion.choices[0]!.message.content! }, { role: 'user', content: 'So when do I get my money?' }], 'paraphrase-http');
    expect(JSON.stringify(upstream.requests.at(-1)!.body)).toContain('Do not quote internal refund policies to customers.');
  });
});

/** Runs `steps` model calls of one session, each answer followed by a user nudge; returns what the upstream got each time. */
async function conversation(clients: OpenAI[], session: string, steps: number, stream = false): Promise<string[]> {
  const messages: ChatCompletionMessageParam[] = [...OPENING];
  const seen: string[] = [];
  for (let call = 0; call < steps; call++) {
    const before = upstream.requests.length;
    const completion = await ask(clients[call % clients.length]!, messages, session, stream);
    seen.push(JSON.stringify(upstream.requests.slice(before).map((request) => request.body)));
    messages.push({ role: 'assistant', content: completion.choices[0]!.message.content ?? '' }, { role: 'user', content: 'Any news?' });
  }
  return seen;
}

describe('semantic loops through serve', () => {
  it.each([false, true])('detects paraphrased repeats and sends the configured hint on the next call (stream: %s)', async (stream) => {
    answers = PARAPHRASED_STEPS;
    const { client, url } = await serve(`${openaiEmbeddings()}loops:\n  threshold: 0.95\n  window: 5\n  hint: "${HINT}"\n`, SUPPORT_WORKFLOW);
    const seen = await conversation([client], `loop-${stream}`, 3, stream);
    expect(seen[1]).not.toContain(HINT);
    expect(seen[2]).toContain(HINT); // step 2 repeated step 1 in other words
    expect(await metricsOf(url)).toContain('panoptes_proxy_interventions_total');
  });

  it('misses them with the lexical embedder (near-verbatim repeats only)', async () => {
    answers = PARAPHRASED_STEPS;
    const { client } = await serve(`embeddings:\n  provider: lexical\nloops:\n  hint: "${HINT}"\n`, SUPPORT_WORKFLOW);
    const seen = await conversation([client], 'loop-lexical', 3);
    expect(seen.join('')).not.toContain(HINT);
  });
});

describe('an embedder that is slow or failing', () => {
  it.each(['slow', 'error'] as const)('(%s) counts embedding misses and lets every call through unchanged', async (mode) => {
    embeddings.mode = mode;
    embeddings.delayMs = 3000;
    answers = [PARAPHRASE, ...PARAPHRASED_STEPS];
    const { client, url, logger } = await serve(`embeddings:\n  provider: openai\n  url: ${embeddings.url}\n  model: fake-concepts\n  timeout_ms: 50\n  warm_up_timeout_ms: 100\nloops: true\n`);
    const started = performance.now();
    const first = await ask(client, OPENING, `failing-${mode}`);
    expect(first.choices[0]!.message.content).toBe(PARAPHRASE); // not recognised without the tier: passed as it is
    const second = await ask(client, [...OPENING, { role: 'assistant', content: PARAPHRASE }, { role: 'user', content: 'Hm?' }], `failing-${mode}`);
    expect(second.choices[0]!.message.content).toBe(PARAPHRASED_STEPS[0]);
    // Two calls well under one slow answer: each embedding gave up at its 50 ms budget.
    expect(performance.now() - started).toBeLessThan(2500);
    expect(misses(await metricsOf(url))).toBeGreaterThanOrEqual(2);
    expect(logger.lines.some((line) => line.includes('embedd'))).toBe(true);
    expect(logger.lines.join('\n')).not.toContain(KEY);
  });
});

describe('two proxies on one redis-server', () => {
  let redis: RedisServer;
  let prefix = 0;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis.stop();
  });
  const redisSettings = () => `redis:\n  url: ${redis.url}\n  key_prefix: "semantic${prefix++}:"\n`;

  it('a loop started on one is detected on the other, and its hint sent by the first', async () => {
    answers = PARAPHRASED_STEPS;
    const settings = `${openaiEmbeddings()}loops:\n  hint: "${HINT}"\n${redisSettings()}`;
    const a = await serve(settings, SUPPORT_WORKFLOW);
    const b = await serve(settings, SUPPORT_WORKFLOW);
    const seen = await conversation([a.client, b.client], 'shared-loop', 3); // calls 1 and 3 on a, 2 on b
    expect(seen[1]).not.toContain(HINT);
    expect(seen[2]).toContain(HINT);
  });

  it('keeps the long window across instances: a repeat from beyond the short window is found', async () => {
    answers = [PARAPHRASED_STEPS[0]!, 'What is the weather forecast for Paris?', PARAPHRASED_STEPS[1]!, 'Sunny with a chance of rain.'];
    const settings = `${openaiEmbeddings()}loops:\n  window: 1\n  long_window: 10\n  hint: "${HINT}"\n${redisSettings()}`;
    const a = await serve(settings, SUPPORT_WORKFLOW);
    const b = await serve(settings, SUPPORT_WORKFLOW);
    // Step 1 on a, step 2 (unrelated) on b, step 3 (step 1 in other words, two steps back) on a: only the long window holds step 1.
    const seen = await conversation([a.client, b.client], 'shared-long', 4);
    expect(seen.slice(0, 3).join('')).not.toContain(HINT);
    expect(seen[3]).toContain(HINT);
  });
});
