/**
 * The predictions and the linter read the moves as the monitors see them: a transparent state a constraint does not
 * name is no step for it, and a move out of a transparent state is judged from the state before it. So a lookup
 * between a yes and the write neither dooms `next` nor makes a path that "breaks" it; a real dead end still does.
 */
import { describe, expect, it } from 'vitest';
import { createSnapshot, findWorkflowCounterexamples, lintWorkflow, parseWorkflow, transition, type WorkflowSnapshot } from '../../src/workflow/index.js';

const workflow = parseWorkflow(`
name: lookups
states:
  - { name: start, initial: true }
  - { name: confirm, classification: { patterns: ["yes"] } }
  - { name: look, transparent: true, classification: { tool_calls: [lookup] } }
  - { name: write, classification: { tool_calls: [write_tool] } }
  - { name: closed, terminal: true, classification: { tool_calls: [close] } }
transitions:
  - { from: start, to: confirm }
  - { from: confirm, to: look }
  - { from: confirm, to: write }
  - { from: confirm, to: closed }
  - { from: look, to: start }
  - { from: write, to: start }
constraints:
  - { name: write_right_after_yes, type: next, trigger: confirm, target: write }
  - { name: look_then_write, type: response, trigger: look, target: write }
`);

const play = (states: readonly string[]) => {
  let snapshot: WorkflowSnapshot = createSnapshot(workflow, { at: 0 });
  const doomed: string[] = [];
  for (const state of states) {
    const result = transition(workflow, snapshot, { type: 'enter', state, at: 1 });
    snapshot = result.snapshot;
    for (const effect of result.effects) if (effect.type === 'constraint-doomed') doomed.push(effect.constraint);
  }
  return { snapshot, doomed };
};

describe('doomed predictions skip transparent steps', () => {
  it('a lookup between the yes and the write dooms nothing (the lookup lists only a move back to start)', () => {
    const { snapshot, doomed } = play(['confirm', 'look']);
    expect(doomed).toEqual([]);
    expect(snapshot.doomed).toEqual([]);
    const after = play(['confirm', 'look', 'write']);
    expect(after.snapshot.deviations).toEqual([]);
    expect(after.snapshot.monitors.write_right_after_yes!.verdict).toBe('pending');
    expect(after.snapshot.monitors.look_then_write!.verdict).toBe('pending');
  });

  it('a constraint that names the transparent state predicts from it, with the moves of the state before it', () => {
    // After confirm -> look, the next move is judged from confirm, which may go to write: look_then_write can be met.
    expect(play(['confirm', 'look']).snapshot.doomed).not.toContain('look_then_write');
  });

  it('a real dead end is still predicted', () => {
    // After the lookup, closing (judged from confirm) leaves look_then_write no way to its write.
    expect(play(['confirm', 'look', 'closed']).doomed).toEqual(['look_then_write']);
  });
});

describe('the linter skips transparent steps', () => {
  it('reports no path that breaks `next` through a lookup the monitor does not see', () => {
    const { diagnostics } = findWorkflowCounterexamples(workflow);
    const breakable = diagnostics.filter((diagnostic) => diagnostic.code === 'constraint-breakable').map((diagnostic) => diagnostic.message);
    expect(breakable.filter((message) => message.includes('write_right_after_yes'))).toEqual(['the workflow lets an agent break `write_right_after_yes`: start -> confirm -> closed']);
    // A constraint that names the lookup sees it on its path.
    expect(breakable).toContainEqual(expect.stringMatching(/look_then_write`: start -> confirm -> look -> closed/));
  });

  it('lints the workflow with no warning about its constraints', () => {
    expect(lintWorkflow(workflow).filter((diagnostic) => diagnostic.code.startsWith('constraint-'))).toEqual([]);
  });
});
