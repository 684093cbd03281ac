import { jsonSchema, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { GenerateResult, Prompt, StreamPart } from '../../../adapters/ai-sdk/host-types.js';
import { ToolCallRefusedError } from '../../../adapters/ai-sdk/index.js';
import { parseWorkflow, type JudgedToolRefusal, type Logger, type ToolRefusal } from '../../../src/index.js';

/**
 * A support workflow: verify identity (critical) before any account action; leaking internal notes is critical
 * too, so it blocks the next call.
 */
export const workflow = parseWorkflow(`
name: support
states:
  - { name: greeting, initial: true, classification: { patterns: ["\\\\bhello\\\\b"] } }
  - { name: identify_issue, classification: { patterns: ["tell me more"] } }
  - { name: verify_identity, classification: { tool_calls: [verify_identity] } }
  - { name: account_action, classification: { tool_calls: [issue_refund] } }
  - { name: leak, classification: { patterns: ["internal notes"] } }
  - { name: resolution, terminal: true, classification: { patterns: ["anything else"] } }
transitions:
  - { from: greeting, to: identify_issue }
  - { from: greeting, to: verify_identity }
  - { from: identify_issue, to: verify_identity }
  - { from: verify_identity, to: account_action }
  - { from: account_action, to: resolution }
constraints:
  - { name: verify_first, type: precedence, trigger: account_action, target: verify_identity, severity: critical, intervention: verify_first }
  - { name: no_leak, type: never, target: leak, severity: critical, intervention: no_leak }
interventions:
  verify_first: "Verify the customer's identity before {attempted_state}."
  no_leak: "Never reveal internal notes."
`);

/** A workflow whose text states are also recognised by embedding similarity, for the embedder-failure path. */
export const exemplarWorkflow = parseWorkflow(`
name: exemplars
states:
  - { name: greeting, initial: true, classification: { exemplars: ["Hello! How can I help?"] } }
  - { name: identify_issue, classification: { exemplars: ["What seems to be the problem?"] } }
transitions:
  - { from: greeting, to: identify_issue }
`);

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A response with text only. */
export function say(text: string): GenerateResult {
  return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
}

/** A response calling one tool, with optional text before it. */
export function callTool(toolName: string, toolCallId: string, input: Record<string, unknown> = {}, text?: string): GenerateResult {
  return {
    content: [...(text === undefined ? [] : [{ type: 'text' as const, text }]), { type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  };
}

/** The chunks of a streamed response with the same content as `result`, text split into words. */
export function streamOf(result: GenerateResult): StreamPart[] {
  const parts: StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  result.content.forEach((item, index) => {
    if (item.type === 'text') {
      parts.push({ type: 'text-start', id: `t${index}` });
      for (const word of item.text.split(/(?<= )/)) parts.push({ type: 'text-delta', id: `t${index}`, delta: word });
      parts.push({ type: 'text-end', id: `t${index}` });
    } else if (item.type === 'tool-call') {
      parts.push({ type: 'tool-input-start', id: item.toolCallId, toolName: item.toolName });
      parts.push({ type: 'tool-input-delta', id: item.toolCallId, delta: item.input });
      parts.push({ type: 'tool-input-end', id: item.toolCallId });
      parts.push(item);
    }
  });
  parts.push({ type: 'finish', finishReason: result.finishReason, usage });
  return parts;
}

/**
 * A stream that yields `parts` one by one. `finishDelayMs` holds the `finish` chunk back, as a provider does when it
 * sends usage in a last event after the tool calls.
 */
export function readableOf(parts: readonly StreamPart[], { finishDelayMs = 0 } = {}): ReadableStream<StreamPart> {
  let index = 0;
  return new ReadableStream<StreamPart>({
    async pull(controller) {
      const part = parts[index++];
      if (part === undefined) return controller.close();
      if (part.type === 'finish' && finishDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, finishDelayMs));
      controller.enqueue(part);
    },
  });
}

/** A mock model that answers each call from `script`, given the prompt it received; it streams too. */
export function scriptedModel(script: (prompt: Prompt, call: number) => GenerateResult, streaming: { finishDelayMs?: number } = {}) {
  let calls = 0;
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => script(prompt, calls++),
    doStream: async ({ prompt }) => ({ stream: readableOf(streamOf(script(prompt, calls++)), streaming) }),
  });
}

/** A mock model that answers its calls with `results`, in order (the last one again when they run out). */
export function sequenceModel(...results: GenerateResult[]) {
  return scriptedModel((_prompt, call) => results[Math.min(call, results.length - 1)]!);
}

const noInput = jsonSchema<Record<string, never>>({ type: 'object', properties: {}, additionalProperties: false });

/** verify_identity and issue_refund, recording which ran. */
export function supportTools() {
  const ran: string[] = [];
  const tools = {
    verify_identity: tool({ description: 'Verify the customer', inputSchema: noInput, execute: async () => (ran.push('verify_identity'), { verified: true }) }),
    issue_refund: tool({ description: 'Refund the order', inputSchema: noInput, execute: async () => (ran.push('issue_refund'), 'refunded') }),
  };
  return { tools, ran };
}

/** The text of the system message of a prompt. */
export const systemOf = (prompt: Prompt) => prompt.flatMap((message) => (message.role === 'system' ? [message.content] : [])).join('\n');

/** All text the prompt's user messages carry, one entry per text part. */
export const userTexts = (prompt: Prompt) =>
  prompt.flatMap((message) => (message.role === 'user' ? message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])) : []));

/** A logger that records warnings instead of printing them. */
export function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => void warnings.push(message) };
}

/** The refusal of a call a guarded tool refused, from a step's content: its `tool-error` part's error. */
export function refusalIn(content: ReadonlyArray<{ type: string }>, toolCallId?: string): ToolRefusal | JudgedToolRefusal | undefined {
  const part = content.find((entry) => entry.type === 'tool-error' && (toolCallId === undefined || (entry as { toolCallId?: string }).toolCallId === toolCallId)) as { error?: unknown } | undefined;
  return ToolCallRefusedError.isInstance(part?.error) ? part.error.refusal : undefined;
}

/** What a guarded tool's `execute` refused a call with: the refusal of the `ToolCallRefusedError` it threw. */
export async function refusalFrom(execution: unknown): Promise<ToolRefusal | JudgedToolRefusal> {
  const error = await Promise.resolve(execution).then(
    (output: unknown) => new Error(`the call ran: ${JSON.stringify(output)}`),
    (thrown: unknown) => thrown,
  );
  if (!ToolCallRefusedError.isInstance(error)) throw error;
  return error.refusal;
}
