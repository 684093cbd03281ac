import { ToolMessage, type AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { ATTR, canonicalJson, SPAN, type Clock, type ReactTelemetry } from '../../../src/index.js';
import { evaluationMessages } from './evaluation.js';
import { currentRunTrace } from './run-trace.js';
import type { ReactControllerState } from './state.js';
import type { ToolCallRecord } from './tool-record.js';

/** What a wrapped tool receives from `ToolNode` besides its arguments: the config, the graph state and the call. */
interface WrappedToolRuntime {
  state?: { messages?: BaseMessage[]; react?: ReactControllerState };
  toolCall?: { id?: string; name: string; args: Record<string, unknown> };
  [key: string]: unknown;
}

/**
 * The tool as the ReAct graph runs it: a call identical (same name, same arguments as canonical JSON) to one that
 * already succeeded in this evaluation is answered with that call's observation, and the tool does not run again
 * (the reference controller's per-evaluation cache). The thread's own messages are the cache, so it lives exactly
 * as long as the evaluation, survives a checkpoint, and needs no key for concurrent runs. Each answer records how
 * long the tool ran and, in a traced invocation, is a span.
 *
 * The original tool itself, with only `invoke` replaced (not a second tool around it): `ToolNode` reads its name,
 * schema and flags as they are, and a call that runs pays for one tool run, callbacks included, not two.
 */
export function reactTool(original: StructuredToolInterface, { clock, cache, telemetry }: { clock: Clock; cache: boolean; telemetry: ReactTelemetry }): StructuredToolInterface {
  const invoke = original.invoke.bind(original) as (input: unknown, config?: unknown) => Promise<unknown>;
  async function invokeReactTool(input: unknown, given?: unknown): Promise<unknown> {
    const runtime = (given ?? {}) as WrappedToolRuntime;
    const call = input as { id?: string; name: string; args: Record<string, unknown>; type?: string };
    // Only ToolNode's calls (a ToolCall with its state) are cached and timed; any other use is the tool's own.
    if (call?.type !== 'tool_call') return invoke(input, given);
    const run = currentRunTrace();
    const span = run && telemetry.startStep(`${SPAN.reactTool} ${call.name}`, { [ATTR.toolName]: call.name, [ATTR.toolCallId]: call.id ?? '', ...toolArguments(telemetry, call.args) }, run);
    const hit = cache ? earlierToolAnswer(runtime.state?.messages && evaluationMessages(runtime.state.messages, runtime.state.react), call) : undefined;
    if (hit) {
      if (run) recordCall(telemetry, span, call.name, true, false);
      return new ToolMessage({ content: hit.content, artifact: hit.artifact, name: call.name, tool_call_id: call.id ?? '', response_metadata: { panoptes: { durationMs: 0, cached: true } satisfies ToolCallRecord } });
    }
    const started = clock.now();
    let output: unknown;
    try {
      output = await invoke(input, given);
    } catch (error) {
      telemetry.endStep(span, {}, error);
      throw error;
    }
    if (output instanceof ToolMessage) output.response_metadata = { ...output.response_metadata, panoptes: { durationMs: clock.now() - started } satisfies ToolCallRecord };
    if (run) recordCall(telemetry, span, call.name, false, output instanceof ToolMessage && output.status === 'error');
    return output;
  }
  return Object.create(original, { invoke: { value: invokeReactTool, enumerable: false, writable: true, configurable: true } }) as StructuredToolInterface;
}

function toolArguments(telemetry: ReactTelemetry, args: unknown) {
  const captured = telemetry.content(args);
  return captured === undefined ? {} : { [ATTR.toolCallArguments]: captured };
}

function recordCall(telemetry: ReactTelemetry, span: ReturnType<ReactTelemetry['startStep']>, tool: string, cached: boolean, failed: boolean): void {
  telemetry.countToolCall(tool, cached);
  telemetry.endStep(span, { [ATTR.cached]: cached, ...(failed ? { [ATTR.status]: 'error' } : {}) });
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
