import { ToolMessage, type AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { canonicalJson, type Clock } from '../../../src/index.js';

/** What Panoptes records on a tool message it made or timed, in `response_metadata.panoptes`. */
export interface ToolCallRecord {
  /** How long the tool ran, in milliseconds (0 for a cached answer). */
  durationMs: number;
  /** The answer is an earlier identical call's, replayed: the tool did not run. */
  cached?: boolean;
  /** The call was `finish` with arguments the schema rejects. */
  invalidFinish?: boolean;
  /** The model sent arguments that are not JSON. */
  malformed?: boolean;
}

/** The record Panoptes keeps on a tool message, if any. */
export function toolCallRecord(message: BaseMessage): ToolCallRecord | undefined {
  return (message.response_metadata as { panoptes?: ToolCallRecord } | undefined)?.panoptes;
}

/** What a wrapped tool receives from `ToolNode` besides its arguments: the config, the graph state and the call. */
interface WrappedToolRuntime {
  state?: { messages?: BaseMessage[] };
  toolCall?: { id?: string; name: string; args: Record<string, unknown> };
  [key: string]: unknown;
}

/**
 * The tool as the ReAct graph runs it: a call identical (same name, same arguments as canonical JSON) to one that
 * already succeeded in this evaluation is answered with that call's observation, and the tool does not run again
 * (the reference controller's per-evaluation cache). The thread's own messages are the cache, so it lives exactly
 * as long as the evaluation, survives a checkpoint, and needs no key for concurrent runs. Each answer records how
 * long the tool ran.
 *
 * The original tool itself, with only `invoke` replaced (not a second tool around it): `ToolNode` reads its name,
 * schema and flags as they are, and a call that runs pays for one tool run, callbacks included, not two.
 */
export function reactTool(original: StructuredToolInterface, { clock, cache }: { clock: Clock; cache: boolean }): StructuredToolInterface {
  const invoke = original.invoke.bind(original) as (input: unknown, config?: unknown) => Promise<unknown>;
  async function invokeReactTool(input: unknown, given?: unknown): Promise<unknown> {
    const runtime = (given ?? {}) as WrappedToolRuntime;
    const call = input as { id?: string; name: string; args: Record<string, unknown>; type?: string };
    // Only ToolNode's calls (a ToolCall with its state) are cached and timed; any other use is the tool's own.
    if (call?.type !== 'tool_call') return invoke(input, given);
    if (cache) {
      const hit = earlierToolAnswer(runtime.state?.messages, call);
      if (hit) return new ToolMessage({ content: hit.content, artifact: hit.artifact, name: call.name, tool_call_id: call.id ?? '', response_metadata: { panoptes: { durationMs: 0, cached: true } satisfies ToolCallRecord } });
    }
    const started = clock.now();
    const output = await invoke(input, given);
    if (output instanceof ToolMessage) output.response_metadata = { ...output.response_metadata, panoptes: { durationMs: clock.now() - started } satisfies ToolCallRecord };
    return output;
  }
  return Object.create(original, { invoke: { value: invokeReactTool, enumerable: false, writable: true, configurable: true } }) as StructuredToolInterface;
}

/** The successful answer to an earlier call with the same name and arguments, in the thread's messages. */
export function earlierToolAnswer(messages: readonly BaseMessage[] | undefined, call: { id?: string; name: string; args: Record<string, unknown> }): ToolMessage | undefined {
  if (!messages) return undefined;
  let key: string | undefined;
  for (const message of messages) {
    if (message.getType() !== 'ai') continue;
    for (const earlier of (message as AIMessage).tool_calls ?? []) {
      if (earlier.name !== call.name || earlier.id === call.id) continue;
      key ??= canonicalJson(call.args);
      if (canonicalJson(earlier.args) !== key) continue;
      const answer = messages.find((candidate): candidate is ToolMessage => candidate.getType() === 'tool' && (candidate as ToolMessage).tool_call_id === earlier.id);
      if (answer && answer.status !== 'error') return answer;
    }
  }
  return undefined;
}
