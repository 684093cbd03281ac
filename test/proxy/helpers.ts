/** Shared set-up of the proxy tests: the demo workflow, a proxy over a fake upstream, and an agent loop over `openai`. */
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import type { ChatCompletionMessage, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { createMonitor, loadWorkflow, parseWorkflow, type Monitor, type MonitorOptions } from '../../src/index.js';
import { createProxy, type Proxy, type ProxyOptions } from '../../src/proxy/index.js';
import { startFakeUpstream, type FakeUpstream, type Script } from './fake-upstream.js';

/** A workflow whose one rule is broken by text: a delivered answer that reveals internal notes blocks the next call. */
export const SECRETS_WORKFLOW = parseWorkflow(
  [
    'name: secrets',
    'states:',
    '  - { name: chatting, initial: true }',
    '  - name: leaking',
    '    classification: { patterns: ["internal notes"] }',
    'transitions: [{ from: chatting, to: leaking }, { from: leaking, to: chatting }]',
    'constraints:',
    '  - { name: no_leaks, type: never, target: leaking, severity: error, intervention: stop_leaks }',
    'interventions:',
    '  stop_leaks: "block: This conversation revealed internal notes; it cannot continue."',
  ].join('\n'),
);

export const SUPPORT_WORKFLOW = fileURLToPath(new URL('../../examples/workflows/customer-support.yaml', import.meta.url));

/** Panoptes' own failures are logged once per cause; the tests keep the output quiet and the lines inspectable. */
export function quietLogger() {
  const lines: string[] = [];
  return { lines, warn: (message: string) => void lines.push(String(message)), error: (message: string) => void lines.push(String(message)) };
}

export interface Running {
  upstream: FakeUpstream;
  proxy: Proxy;
  monitor: Monitor;
  url: string;
  client: OpenAI;
  /** The `x-panoptes-session-id` of every answer `client` received, in order. */
  sessionIds: string[];
  logger: ReturnType<typeof quietLogger>;
  close(): Promise<void>;
}

/** A fake upstream running `script`, a monitor of the support workflow and a proxy in front, listening on a free port. */
export async function startProxy(
  script: Script,
  {
    monitor: monitorOptions = {},
    proxy: proxyOptions = {},
    upstream: upstreamOptions,
    apiKey = 'sk-test-secret',
    anthropic = false,
  }: { monitor?: Partial<MonitorOptions>; proxy?: Partial<ProxyOptions>; upstream?: Parameters<typeof startFakeUpstream>[1]; apiKey?: string; /** The fake is the Anthropic upstream too. */ anthropic?: boolean } = {},
): Promise<Running> {
  const upstream = await startFakeUpstream(script, upstreamOptions);
  const logger = quietLogger();
  const monitor = createMonitor({ workflow: await loadWorkflow(SUPPORT_WORKFLOW), logger, ...monitorOptions });
  const proxy = createProxy({ upstream: upstream.url, monitor, port: 0, logger, ...(anthropic ? { anthropicUpstream: upstream.url } : {}), ...proxyOptions });
  const { url } = await proxy.listen();
  const { client, sessionIds } = recordingClient(url, apiKey);
  return {
    upstream,
    proxy,
    monitor,
    url,
    client,
    sessionIds,
    logger,
    async close() {
      await proxy.close();
      await upstream.close();
    },
  };
}

/**
 * The guidance the session's next call will carry, rendered, without using it up: where the reason of a call the
 * proxy refused waits for the model (the client reads only the user-facing message).
 */
export async function nextGuidance(monitor: Monitor, sessionId: string): Promise<string> {
  const next = await monitor.peek(sessionId);
  return next.action === 'proceed' ? next.interventions.map((intervention) => intervention.text).join('\n') : next.intervention.text;
}

/** An `openai` client of the proxy at `url` that keeps the session id of every answer (the proxy's response header). */
export function recordingClient(url: string, apiKey = 'sk-test-secret'): { client: OpenAI; sessionIds: string[] } {
  const sessionIds: string[] = [];
  const client = new OpenAI({
    baseURL: `${url}/v1`,
    apiKey,
    maxRetries: 0,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const sessionId = response.headers.get('x-panoptes-session-id');
      if (sessionId) sessionIds.push(sessionId);
      return response;
    },
  });
  return { client, sessionIds };
}

export const TOOLS: ChatCompletionTool[] = ['verify_identity', 'issue_refund'].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } }));

export const OPENING: ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are a support agent for an online shop. Be brief.' },
  { role: 'user', content: 'Hi, I want a refund for order A-1042, it arrived broken.' },
];

/** One model call through the official client, streamed (with the SDK's own accumulation) or not. */
export async function ask(client: OpenAI, messages: ChatCompletionMessageParam[], { stream, headers }: { stream: boolean; headers?: Record<string, string> }): Promise<{ message: ChatCompletionMessage; finishReason: string | null }> {
  if (!stream) {
    const completion = await client.chat.completions.create({ model: 'fake-model', messages, tools: TOOLS }, headers ? { headers } : undefined);
    return { message: completion.choices[0]!.message, finishReason: completion.choices[0]!.finish_reason };
  }
  const runner = client.chat.completions.stream({ model: 'fake-model', messages, tools: TOOLS }, headers ? { headers } : undefined);
  const completion = await runner.finalChatCompletion();
  return { message: completion.choices[0]!.message, finishReason: completion.choices[0]!.finish_reason };
}

/**
 * The customer's side of the demo, as any OpenAI-client agent loop would run it: tool calls are executed and their
 * results sent back; a plain answer goes to the customer, who says "go ahead" once; the second plain answer ends it.
 */
export async function runDemo(client: OpenAI, { stream, headers }: { stream: boolean; headers?: Record<string, string> }) {
  const messages: ChatCompletionMessageParam[] = [...OPENING];
  const answers: Array<{ message: ChatCompletionMessage; finishReason: string | null }> = [];
  let plainAnswers = 0;
  for (let call = 0; call < 8; call++) {
    const answer = await ask(client, messages, { stream, ...(headers ? { headers } : {}) });
    answers.push(answer);
    const { message } = answer;
    messages.push({ role: 'assistant', content: message.content ?? '', ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}) } as ChatCompletionMessageParam);
    if (message.tool_calls?.length) {
      for (const toolCall of message.tool_calls) {
        if (toolCall.type !== 'function') continue;
        messages.push({ role: 'tool', tool_call_id: toolCall.id, content: toolCall.function.name === 'issue_refund' ? 'Refund of $42 issued.' : 'Identity verified.' });
      }
      continue;
    }
    plainAnswers++;
    if (plainAnswers === 2) break;
    messages.push({ role: 'user', content: 'OK, please go ahead.' });
  }
  return { messages, answers };
}

/** A response's JSON body, loosely typed for assertions (`fetch` types it as unknown). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const json = (response: Response): Promise<any> => response.json();
