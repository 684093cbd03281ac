import { normaliseToolName, type ToolCall } from '../messages/index.js';
import { isTransparentTool, type Workflow } from '../workflow/index.js';
import { preferValid } from './prefer-valid.js';
import type { ClassificationResult } from './types.js';

/** Normalised tool name (see `normaliseToolName`) -> the states that list it, in file order. Built once per workflow. */
export type ToolStateMap = ReadonlyMap<string, readonly string[]>;

/** Indexes the workflow's `classification.tool_calls` by their normalised names. */
export function toolStateMap(workflow: Workflow): ToolStateMap {
  const map = new Map<string, string[]>();
  for (const state of workflow.definition.states) {
    for (const tool of state.classification.toolCalls) {
      const name = normaliseToolName(tool);
      map.set(name, [...(map.get(name) ?? []), state.name]);
    }
  }
  return map;
}

/**
 * The tier-1 results: one state per recognised tool call, in call order. A call is recognised by its normalised name,
 * so `Issue_Refund` or a Cyrillic look-alike is the workflow's `issue_refund` (the evidence keeps the name as called). Each decision starts from the state the
 * previous call led to, so a tool listed by two states resolves toward the valid move at that point.
 */
export function classifyToolCalls(workflow: Workflow, map: ToolStateMap, toolCalls: readonly ToolCall[], currentState: string): ClassificationResult[] {
  const results: ClassificationResult[] = [];
  let from = currentState;
  for (const call of toolCalls) {
    if (isTransparentTool(workflow, call.name)) continue; // no step at all
    const states = map.get(normaliseToolName(call.name));
    if (!states) continue;
    const state = preferValid(workflow, from, states);
    results.push({
      state,
      method: 'tool_call',
      confidence: 1,
      evidence: { kind: 'tool_call', toolName: call.name, ...(call.id === undefined ? {} : { toolCallId: call.id }) },
    });
    from = state;
  }
  return results;
}
