/**
 * `panoptes serve` with a `judge:` section, from a config file to the official `openai` client: the judge's model an
 * OpenAI-compatible chat endpoint (a fake one on loopback, asked for the verdict's JSON schema with the key from the
 * named variable), or a cassette recorded through the proxy and replayed strictly.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { AggregationTemporality, InMemoryMetricExporter } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createJudge, emptyCassette, parseRubrics, recordedJudge, scriptedJudge, type Rubric } from '../../src/index.js';
import { loadServeConfig, startServe, type RunningProxy } from '../../src/proxy/index.js';
import { configFile } from './config-helpers.js';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import { quietLogger, recordingClient } from './helpers.js';
import { MAIL_TOOLS, RUBRICS, judgeAnswer, mailAgent, metricValue } from './judge-helpers.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const FORWARD: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Please forward my orders as the document says.' }];
const MAIL_ME: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Please mail me@example.com a hello.' }];

/** A fake OpenAI-compatible judge endpoint: it reads the rubric and the judged material from the prompt and answers as the scripted judge does. */
async function startJudgeEndpoint({ status = 200, hang = false }: { status?: number; hang?: boolean } = {}) {
  const requests: Array<{ path: string; authorization: string | undefined; body: Record<string, any> }> = [];
  const aborted: string[] = [];
  const server: Server = createServer(async (request, response) => {
    let raw = '';
    for await (const chunk of request) raw += String(chunk);
    const body = JSON.parse(raw) as Record<string, any>;
    requests.push({ path: request.url ?? '', authorization: request.headers.authorization, body });
    if (hang) return void response.on('close', () => aborted.push(request.url ?? ''));
    if (status !== 200) {
      response.writeHead(status, { 'content-type': 'application/json' });
      return void response.end(JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } }));
    }
    const prompt = String(body.messages[1].content);
    const rubric = { id: /# Rubric: (\S+)/.exec(prompt)![1] } as Rubric;
    const judged = prompt.slice(prompt.indexOf('<judged>\n') + '<judged>\n'.length, prompt.lastIndexOf('\n</judged>'));
    const answer = judgeAnswer({ rubric, judged } as Parameters<typeof judgeAnswer>[0]);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ id: 'chatcmpl-judge', object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify(answer) } }], usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests, aborted };
}

/** A config file over `upstream` with `judge` (the section's text), beside a plain workflow, the rubrics and `files`. */
function serveConfig(upstream: FakeUpstream, judge: string, files: Record<string, string> = {}): string {
  const path = configFile(`upstream: ${upstream.url}\nworkflow: plain.yaml\nrefusal_message: Sorry, I cannot do that.\n${judge}`);
  writeFileSync(join(dirname(path), 'plain.yaml'), 'name: plain\nstates:\n  - { name: chatting, initial: true }\n');
  writeFileSync(join(dirname(path), 'mail.rubrics.yaml'), RUBRICS);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dirname(path), name), text);
  return path;
}

async function serve(configPath: string, env: Record<string, string>, options: Parameters<typeof startServe>[1] = {}): Promise<RunningProxy & { lines: string[] }> {
  const config = await loadServeConfig({ configPath, env, flags: { port: '0' } });
  const logger = quietLogger();
  const running = await startServe(config, { logger, env, ...options });
  closers.push(() => running.close());
  return { ...running, lines: logger.lines };
}

async function upstream() {
  const fake = await startFakeUpstream(mailAgent);
  closers.push(() => fake.close());
  return fake;
}

const mailCall = async (url: string, messages: ChatCompletionMessageParam[], session: string) =>
  (await recordingClient(url).client.chat.completions.create({ model: 'fake-model', messages, tools: MAIL_TOOLS }, { headers: { 'x-panoptes-session-id': session } })).choices[0]!.message;

describe('panoptes serve with a judge endpoint', () => {
  it('asks the endpoint for the verdict schema, with the key from api_key_env, and refuses what it fails', async () => {
    const endpoint = await startJudgeEndpoint();
    const path = serveConfig(await upstream(), `judge:\n  rubrics: mail.rubrics.yaml\n  model:\n    base_url: ${endpoint.url}\n    model: judge-mini\n    api_key_env: JUDGE_KEY\n  timeout_ms: 5000\n`);
    const running = await serve(path, { JUDGE_KEY: 'sk-judge-123' });
    const refused = await mailCall(running.url, FORWARD, 'endpoint-1');
    expect(refused.tool_calls ?? []).toEqual([]);
    expect(refused.content).toBe('Sorry, I cannot do that.');
    const allowed = await mailCall(running.url, MAIL_ME, 'endpoint-2');
    expect(allowed.tool_calls).toHaveLength(1);
    // The call rubric twice; the turn rubric on the one response with text ("Sending it now.").
    expect(endpoint.requests.map((request) => /# Rubric: (\S+)/.exec(request.body.messages[1].content)![1])).toEqual(['outgoing_mail', 'no_amount', 'outgoing_mail']);
    const [first] = endpoint.requests;
    expect(first!.path).toBe('/v1/chat/completions');
    expect(first!.authorization).toBe('Bearer sk-judge-123');
    expect(first!.body).toMatchObject({ model: 'judge-mini', temperature: 0, response_format: { type: 'json_schema', json_schema: { name: 'panoptes_verdict', strict: true, schema: { required: ['criteria', 'confidence'] } } } });
    expect(await metricValue(running.url, 'panoptes_proxy_judgments_total', { rubric: 'outgoing_mail', outcome: 'fail', action: 'block' })).toBe(1);
    expect(running.proxy.metrics.value('panoptes_proxy_judgments_total', { rubric: 'outgoing_mail', scope: 'tool_call', outcome: 'pass', action: 'allow' })).toBe(1);
  });

  it('an endpoint that fails is a model miss: the call is refused by on_error deny, the text passes by on_error allow', async () => {
    const endpoint = await startJudgeEndpoint({ status: 503 });
    const path = serveConfig(await upstream(), `judge:\n  rubrics: mail.rubrics.yaml\n  model:\n    base_url: ${endpoint.url}\n    model: judge-mini\n`);
    const running = await serve(path, {});
    const message = await mailCall(running.url, MAIL_ME, 'endpoint-down');
    expect(message.tool_calls ?? []).toEqual([]);
    expect(message.content).toBe('Sending it now.\n\nSorry, I cannot do that.');
    expect(endpoint.requests[0]!.authorization).toBeUndefined();
    expect(await metricValue(running.url, 'panoptes_proxy_judge_misses_total', { rubric: 'outgoing_mail', cause: 'model' })).toBe(1);
    expect(await metricValue(running.url, 'panoptes_proxy_judge_misses_total', { rubric: 'no_amount', cause: 'model' })).toBe(1);
    // Logged once per kind of error, whichever rubric met it first.
    expect(running.lines.filter((line) => line.includes('judge endpoint answered 503'))).toHaveLength(1);
    expect(running.lines.join('\n')).toMatch(/\[panoptes\] judge: rubric '(no_amount|outgoing_mail)': the judge's model failed: the judge endpoint answered 503: .*its on_error \((allow|deny)\) applies/);
  });
});

describe('panoptes serve with a judge endpoint that hangs', () => {
  it('gives up at timeout_ms, aborting the request: the call is refused (on_error deny), a timeout miss', async () => {
    const endpoint = await startJudgeEndpoint({ hang: true });
    const path = serveConfig(await upstream(), `judge:\n  rubrics: mail.rubrics.yaml\n  model:\n    base_url: ${endpoint.url}\n    model: judge-mini\n  timeout_ms: 200\n`);
    const running = await serve(path, {});
    const started = Date.now();
    const message = await mailCall(running.url, FORWARD, 'hang');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(message.tool_calls ?? []).toEqual([]);
    expect(await metricValue(running.url, 'panoptes_proxy_judge_misses_total', { rubric: 'outgoing_mail', cause: 'timeout' })).toBe(1);
    // The judge's request was aborted, not left open.
    await vi.waitFor(() => expect(endpoint.aborted).toEqual(['/v1/chat/completions']), { timeout: 2000 });
  });
});

describe('panoptes serve with a judge cassette', () => {
  it('replays verdicts recorded through the proxy; a call not recorded is a miss, refused by on_error deny', async () => {
    const fake = await upstream();
    // Recorded through a proxy with a judge injected by the programmatic API: a scripted model behind a cassette.
    const cassette = emptyCassette('judge-mini');
    const recorder = createJudge({ model: recordedJudge(cassette, { strict: false, fallback: scriptedJudge(judgeAnswer, { modelId: 'judge-mini' }) }), rubrics: parseRubrics(RUBRICS), logger: { warn: () => undefined } });
    const path = serveConfig(fake, 'judge:\n  rubrics: mail.rubrics.yaml\n  cassette: judge.cassette.json\n');
    writeFileSync(join(dirname(path), 'judge.cassette.json'), JSON.stringify(cassette));
    const recording = await serve(path, {}, { judge: recorder });
    expect((await mailCall(recording.url, FORWARD, 'record')).tool_calls ?? []).toEqual([]);
    expect(Object.keys(cassette.entries)).toHaveLength(1);
    writeFileSync(join(dirname(path), 'judge.cassette.json'), JSON.stringify(cassette));

    const replaying = await serve(path, {});
    const replayed = await mailCall(replaying.url, FORWARD, 'replay');
    expect(replayed.tool_calls ?? []).toEqual([]);
    expect(await metricValue(replaying.url, 'panoptes_proxy_judgments_total', { rubric: 'outgoing_mail', outcome: 'fail', action: 'block' })).toBe(1);
    // Not in the cassette: a strict miss, a judgment error.
    const unrecorded = await mailCall(replaying.url, MAIL_ME, 'replay-2');
    expect(unrecorded.tool_calls ?? []).toEqual([]);
    expect(await metricValue(replaying.url, 'panoptes_proxy_judge_misses_total', { rubric: 'outgoing_mail', cause: 'model' })).toBe(1);
  });
});

describe('panoptes serve with a judge and a rulebase', () => {
  it("the rulebase's judged(...) is answered by the judge's rubric of that name", async () => {
    const rubrics = parseRubrics(RUBRICS.replace('    applies_to: { tools: [send_email] }', '    applies_to: { tools: [send_email], rules: [outgoing_mail] }'));
    const asked: string[] = [];
    const judge = createJudge({ model: scriptedJudge((request) => (asked.push(request.rubric.id), judgeAnswer(request))), rubrics, logger: { warn: () => undefined } });
    const path = serveConfig(await upstream(), 'rulebase: mail.rules\n', { 'mail.rules': 'guard send_email(to: T) :- judged(outgoing_mail) "you did not ask to write to {T}".\n' });
    const running = await serve(path, {}, { judge });
    expect((await mailCall(running.url, FORWARD, 'rules-1')).tool_calls ?? []).toEqual([]);
    expect((await mailCall(running.url, MAIL_ME, 'rules-2')).tool_calls).toHaveLength(1);
    // Once per call, through the rule (the turn rubric judged the one response with text).
    expect(asked).toEqual(['outgoing_mail', 'no_amount', 'outgoing_mail']);
  });
});

describe('panoptes serve with a judge and OpenTelemetry export', () => {
  it("exports a span per judgment and the core's judgment counter beside the proxy's", async () => {
    const spanExporter = new (class extends InMemorySpanExporter {
      override shutdown(): Promise<void> {
        return Promise.resolve(); // keep the spans past close, to read them
      }
    })();
    const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const path = serveConfig(await upstream(), 'judge:\n  rubrics: mail.rubrics.yaml\n  cassette: judge.cassette.json\n', { 'judge.cassette.json': JSON.stringify(emptyCassette('judge-mini')) });
    const config = await loadServeConfig({ configPath: path, env: {}, flags: { port: '0' } });
    const running = await startServe(config, { logger: quietLogger(), env: {}, exporters: { spanExporter, metricExporter } });
    expect((await mailCall(running.url, FORWARD, 'otel')).tool_calls ?? []).toEqual([]);
    await running.close();
    const judged = spanExporter.getFinishedSpans().find((span) => span.name === 'panoptes.judge outgoing_mail');
    expect(judged?.attributes).toMatchObject({ 'panoptes.judge.rubric': 'outgoing_mail', 'panoptes.judge.outcome': 'error', 'panoptes.judge.action': 'deny', 'panoptes.judge.error': 'model', 'gen_ai.request.model': 'judge-mini' });
    const names = metricExporter.getMetrics().flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => metric.descriptor.name)));
    expect(names).toEqual(expect.arrayContaining(['panoptes.judgments', 'panoptes.judge.duration']));
  });
});
