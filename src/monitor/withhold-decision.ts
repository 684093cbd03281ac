import type { ClassificationResult } from '../classify/index.js';
import { canWithhold, previewWithhold, type WithholdDecision, type Workflow, type WorkflowSnapshot } from '../workflow/index.js';

/**
 * Whether a classified response must be withheld from the user: it is a text response, and the state it was
 * classified as, or another state its text matched a pattern of (a tie the classifier settled the other way, as in
 * "Hello! Here are our internal notes"), would break a constraint that withholds. A response with tool calls is
 * never withheld here: `beforeTool` refuses its calls one by one.
 */
export function withholdDecision(workflow: Workflow, snapshot: WorkflowSnapshot, classifications: readonly ClassificationResult[]): WithholdDecision | undefined {
  if (classifications.length !== 1 || !canWithhold(workflow)) return undefined;
  const { state, evidence } = classifications[0]!;
  if (evidence.kind === 'tool_call') return undefined;
  const decision = previewWithhold(workflow, snapshot, state);
  if (decision || evidence.kind !== 'pattern' || !evidence.others) return decision;
  for (const other of evidence.others) {
    const matched = previewWithhold(workflow, snapshot, other);
    if (matched) return matched;
  }
  return undefined;
}
