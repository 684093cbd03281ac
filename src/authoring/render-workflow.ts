import { Document, isMap, isScalar, isSeq, visit, type YAMLMap } from 'yaml';
import type { WorkflowDraft } from './draft.js';

/** The schema as `npm install panoptes` installs it, for a workflow file written at the project's root. */
export const DEFAULT_SCHEMA_REFERENCE = './node_modules/panoptes/workflow.schema.json';

/** Where a draft item sits in the document, and whether its quote was found in the policy. */
export interface SourceFlag {
  /** `states[2]`, `constraints[0]`, `interventions.verify_first`. */
  path: string;
  source: string;
}

/**
 * Writes a draft as a workflow file a reviewer can check line by line: the editor's schema line, a header, every
 * item with its `source:` quote, and a `# CHECK` comment above each item whose quote is not in the policy.
 * @param options.schema The schema line's reference, relative to where the file is written.
 */
export function renderWorkflowYaml(draft: WorkflowDraft, { flagged = [], header = [], schema = DEFAULT_SCHEMA_REFERENCE }: { flagged?: readonly SourceFlag[]; header?: readonly string[]; schema?: string } = {}): string {
  const document = new Document({
    name: draft.name,
    version: '0.1',
    description: draft.description,
    states: draft.states.map(({ name, description, initial, terminal, tool_calls, patterns, exemplars, source }) => ({
      name,
      description,
      ...(initial ? { initial: true } : {}),
      ...(terminal ? { terminal: true } : {}),
      classification: {
        ...(tool_calls?.length ? { tool_calls } : {}),
        ...(patterns?.length ? { patterns } : {}),
        ...(exemplars?.length ? { exemplars } : {}),
      },
      source,
    })),
    transitions: draft.transitions.map(({ from, to, source }) => ({ from, to, source })),
    constraints: draft.constraints.map(({ name, type, trigger, target, condition, severity, intervention, description, source }) => ({
      name,
      type,
      ...(trigger === undefined ? {} : { trigger }),
      ...(target === undefined ? {} : { target }),
      ...(condition === undefined ? {} : { condition }),
      severity,
      ...(intervention === undefined ? {} : { intervention }),
      ...(description === undefined ? {} : { description }),
      source,
    })),
    interventions: Object.fromEntries(draft.interventions.map(({ name, template, source }) => [name, { template, source }])),
  });
  // Lists of names and patterns on one line (`tool_calls: [a, b]`), as people write them.
  visit(document, { Seq: (_, node) => void (node.items.every((item) => isScalar(item)) && (node.flow = true)) });
  for (const { path } of flagged) {
    const node = document.getIn(pathParts(path), true);
    if (isMap(node) || isSeq(node)) (node as YAMLMap).commentBefore = ' CHECK: this source is not a quote of the policy';
  }
  document.commentBefore = [`yaml-language-server: $schema=${schema}`, ...header].map((line) => ` ${line}`).join('\n');
  return document.toString({ lineWidth: 0 });
}

function pathParts(path: string): Array<string | number> {
  return path
    .split(/[.[\]]/)
    .filter((part) => part !== '')
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}
