import { parseWorkflow, type AssistantTurn, type Logger } from '../../src/index.js';

/** A support workflow: verify identity (critical) before any account action, never leak internals. */
export const supportWorkflow = parseWorkflow(`
name: support
states:
  - name: greeting
    initial: true
    classification: { patterns: ["\\\\bhello\\\\b"] }
  - name: identify_issue
    classification:
      patterns: ["tell me more"]
      exemplars: ["What seems to be the problem?"]
  - name: verify_identity
    classification: { tool_calls: [verify_identity] }
  - name: account_action
    classification: { tool_calls: [issue_refund, close_account] }
  - name: leak
    classification: { patterns: ["internal notes"] }
  - name: resolution
    terminal: true
    classification: { patterns: ["anything else"] }
transitions:
  - { from: greeting, to: identify_issue }
  - { from: identify_issue, to: verify_identity }
  - { from: verify_identity, to: account_action }
  - { from: account_action, to: resolution }
  - { from: identify_issue, to: resolution }
constraints:
  - name: verify_first
    type: precedence
    trigger: account_action
    target: verify_identity
    severity: critical
    intervention: verify_first
  - { name: no_leak, type: never, target: leak, severity: error, intervention: no_leak }
  - { name: must_resolve, type: eventually, target: resolution, severity: warning }
interventions:
  verify_first: "Verify the customer's identity before {attempted_state}."
  no_leak: "inject: Never reveal internal notes."
`);

export const say = (content: string): AssistantTurn => ({ content, toolCalls: [] });
export const call = (name: string, id = `${name}-1`): AssistantTurn => ({ content: '', toolCalls: [{ id, name, args: {} }] });

/** A logger that records warnings instead of printing them. */
export function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => void warnings.push(message) };
}

/** Refunds: look the booking up before refunding it (critical); no identity check. */
export const refundsWorkflow = parseWorkflow(`
name: refunds
states:
  - { name: start, initial: true }
  - { name: lookup, classification: { tool_calls: [get_booking] } }
  - { name: refund, classification: { tool_calls: [issue_refund] } }
transitions:
  - { from: start, to: lookup }
  - { from: lookup, to: refund }
constraints:
  - { name: lookup_first, type: precedence, trigger: refund, target: lookup, severity: critical }
`);
