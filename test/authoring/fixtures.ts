import type { WorkflowDraft } from '../../src/authoring/index.js';

/** A short policy the drafts below quote. */
export const POLICY = `# Refund desk
Greet the customer. Verify the customer's identity before any refund.
Never share internal notes. Every conversation ends with a goodbye.`;

/** A valid draft of POLICY; `overrides` replace whole fields. */
export function draft(overrides: Partial<WorkflowDraft> = {}): WorkflowDraft {
  return {
    name: 'refund-desk',
    description: 'Refunds after verification.',
    states: [
      { name: 'greeting', description: 'Greet', initial: true, patterns: ['\\bhello\\b'], source: 'Greet the customer.' },
      { name: 'verify_identity', description: 'Verify', tool_calls: ['verify_identity'], source: "Verify the customer's identity before any refund." },
      { name: 'refund', description: 'Refund', tool_calls: ['issue_refund'], source: "Verify the customer's identity before any refund." },
      { name: 'goodbye', description: 'Close', terminal: true, patterns: ['goodbye'], source: 'Every conversation ends with a goodbye.' },
    ],
    transitions: [
      { from: 'greeting', to: 'verify_identity', source: "Verify the customer's identity before any refund." },
      { from: 'verify_identity', to: 'refund', source: "Verify the customer's identity before any refund." },
      { from: 'refund', to: 'goodbye', source: 'Every conversation ends with a goodbye.' },
    ],
    constraints: [
      { name: 'verify_before_refund', type: 'precedence', trigger: 'refund', target: 'verify_identity', severity: 'critical', intervention: 'verify_first', source: "Verify the customer's identity before any refund." },
      { name: 'say_goodbye', type: 'eventually', target: 'goodbye', severity: 'warning', source: 'Every conversation ends with a goodbye.' },
    ],
    interventions: [{ name: 'verify_first', template: 'inject: Verify the identity first.', source: "Verify the customer's identity before any refund." }],
    ...overrides,
  };
}
