import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenarios, parseScenario, renderScenarioText, runScenarios } from '../../src/scenarios/index.js';

const PLAIN = { green: String, red: String, yellow: String, dim: String };

/** A folder with the files given, for scenarios that point at workflows and rules by path. */
function folder(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'panoptes-scenarios-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return root;
}

const WORKFLOW = `
name: bookings
states:
  - { name: start, initial: true, classification: { patterns: ["hello"] } }
  - { name: lookup, classification: { tool_calls: [get_reservation_details] } }
  - { name: cancel, classification: { tool_calls: [cancel_reservation] } }
  - { name: done, terminal: true, classification: { patterns: ["goodbye"] } }
transitions:
  - { from: start, to: lookup }
  - { from: lookup, to: cancel }
  - { from: cancel, to: done }
  - { from: lookup, to: done }
constraints:
  - { name: lookup_first, type: precedence, trigger: cancel, target: lookup, severity: critical, intervention: look_up }
  - { name: finish, type: eventually, target: done, severity: warning }
interventions:
  look_up: "Look the reservation up first."
`;

const RULES = `
context current_user
data reservation_user(R, U) from get_reservation_details(reservation_id: R) -> U = $.user_id ttl 60s
askable confirms_cancellation(R) "Cancel {R}? (yes/no)"
guard cancel_reservation(reservation_id: R) :- reservation_user(R, current_user), confirms_cancellation(R).
`;

const call = (id: string, name: string, args: object) => ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] });
const CANCEL_CONVERSATION = [
  { role: 'user', content: 'Cancel ABC123 please' },
  { role: 'assistant', content: 'hello, let me look' },
  call('1', 'get_reservation_details', { reservation_id: 'ABC123' }),
  { role: 'tool', tool_call_id: '1', content: '{"user_id":"mia"}' },
  call('2', 'cancel_reservation', { reservation_id: 'ABC123' }),
  { role: 'tool', tool_call_id: '2', content: 'ok' },
  { role: 'assistant', content: 'Done, goodbye' },
];

function scenarioYaml(lines: Record<string, unknown>): string {
  return JSON.stringify(lines, null, 2); // JSON is YAML
}

describe('parseScenario', () => {
  it('names the line and field of an unknown expectation, with the keys accepted', () => {
    const { scenario, diagnostics } = parseScenario('name: x\nconversation: []\nexpect:\n  verdict: { a: satisfied }\n', { file: 's.yaml' });
    expect(scenario).toBeUndefined();
    expect(diagnostics).toMatchObject([{ code: 'invalid-scenario', path: 'expect.verdict', line: 4, source: 's.yaml' }]);
    expect(diagnostics[0]!.message).toContain('verdict');
    expect(diagnostics[0]!.hint).toContain('verdicts, violations, refused, loops, final_state');
  });

  it('refuses a verdict that is not one of the three', () => {
    const { diagnostics } = parseScenario('conversation: []\nexpect:\n  verdicts: { a: ok }\n', { file: 's.yaml' });
    expect(diagnostics).toMatchObject([{ path: 'expect.verdicts.a', line: 3 }]);
    expect(diagnostics[0]!.message).toMatch(/satisfied.*violated.*pending/);
  });

  it('refuses a scenario with nothing to run', () => {
    const { diagnostics } = parseScenario('expect: { violations: [] }\n', { file: 's.yaml' });
    expect(diagnostics[0]!.message).toBe('the scenario has neither `conversation:` nor `transcript:`');
  });

  it('reports YAML syntax errors with their line', () => {
    const { diagnostics } = parseScenario('expect: [\n', { file: 's.yaml' });
    expect(diagnostics[0]).toMatchObject({ code: 'yaml-syntax', line: expect.any(Number) });
  });
});

describe('runScenarios', () => {
  it('passes a scenario whose expectations hold and fails one whose do not, with the diff', async () => {
    const root = folder({
      'workflow.yaml': WORKFLOW,
      'good.yaml': scenarioYaml({ workflow: 'workflow.yaml', conversation: CANCEL_CONVERSATION, expect: { violations: [], final_state: 'done', trace: ['start', 'lookup', 'cancel', 'done'] } }),
      'bad.yaml': scenarioYaml({ workflow: 'workflow.yaml', conversation: CANCEL_CONVERSATION, expect: { violations: ['finish'], final_state: 'cancel' } }),
    });
    const { scenarios, problems } = await loadScenarios([root]);
    expect(problems).toEqual([]);
    const report = await runScenarios(scenarios);
    expect(report.results.map((result) => [result.name, result.status])).toEqual([
      ['bad', 'failed'],
      ['good', 'passed'],
    ]);
    expect(report.results[0]!.mismatches).toEqual([
      { field: 'violations', expected: ['finish'], actual: [] },
      { field: 'final_state', expected: 'cancel', actual: 'done' },
    ]);
    const text = renderScenarioText({ ...report, problems: [] }, PLAIN).join('\n');
    expect(text).toContain('final_state:\n    - expected "cancel"\n    + actual   "done"');
  });

  it('refuses a guarded call the rules cannot prove, answers data tools from fixtures, and reports coverage', async () => {
    const root = folder({ 'workflow.yaml': WORKFLOW, 'policy.rules': RULES });
    const rules = { file: 'policy.rules', context: { current_user: 'mia' }, fixtures: { get_reservation_details: [{ args: { reservation_id: 'ABC123' }, result: { user_id: 'mia' } }] } };
    writeFileSync(join(root, 'unconfirmed.yaml'), scenarioYaml({ workflow: 'workflow.yaml', rules, conversation: CANCEL_CONVERSATION, expect: { refused: ['cancel_reservation'], trace: ['start', 'lookup', 'done'] } }));
    writeFileSync(join(root, 'confirmed.yaml'), scenarioYaml({ workflow: 'workflow.yaml', rules: { ...rules, confirm: ['confirms_cancellation("ABC123")'] }, conversation: CANCEL_CONVERSATION, expect: { refused: [] } }));
    const { scenarios } = await loadScenarios([join(root, 'unconfirmed.yaml'), join(root, 'confirmed.yaml')]);
    const report = await runScenarios(scenarios);
    expect(report.results.map((result) => result.status)).toEqual(['passed', 'passed']);
    expect(report.results[0]!.actual.guarded).toEqual(['cancel_reservation']);
    // Nobody cancelled before looking up: the critical constraint and its intervention were never exercised.
    expect(report.coverage.constraints[join(root, 'workflow.yaml')]).toEqual([]);
    expect(report.coverage.interventions[join(root, 'workflow.yaml')]).toEqual(['look_up']);
    expect(report.coverage.guards[join(root, 'policy.rules')]).toEqual([]);
  });

  it('turns a missing transcript, a missing workflow and a bad message into errors, and runs the rest', async () => {
    const root = folder({ 'workflow.yaml': WORKFLOW });
    writeFileSync(join(root, 'a.yaml'), scenarioYaml({ workflow: 'workflow.yaml', transcript: 'nowhere.json', expect: {} }));
    writeFileSync(join(root, 'b.yaml'), scenarioYaml({ workflow: 'missing.yaml', conversation: [], expect: {} }));
    writeFileSync(join(root, 'c.yaml'), scenarioYaml({ workflow: 'workflow.yaml', conversation: [{ role: 'bot', content: 'x' }], expect: {} }));
    writeFileSync(join(root, 'd.yaml'), scenarioYaml({ conversation: [], expect: {} }));
    const { scenarios } = await loadScenarios([root]);
    const report = await runScenarios(scenarios);
    expect(report.results.map((result) => result.error)).toEqual([
      `the transcript ${join(root, 'nowhere.json')}: no such file; check the path`,
      `the workflow ${join(root, 'missing.yaml')}: no such file; check the path, or run \`panoptes init\` to write a starter workflow`,
      "conversation: messages[0]: unknown role 'bot'; valid roles: system, developer, user, assistant, tool",
      'no workflow: add `workflow: path/to/workflow.yaml` to the scenario, or pass --workflow',
    ]);
    expect(report.summary).toMatchObject({ scenarios: 4, errors: 4, passed: 0 });
  });


  it('checks loops by kind: the same lookup with the same result four times is a repeated action', async () => {
    const lookup = (id: string) => [call(id, 'get_reservation_details', { reservation_id: 'ABC123' }), { role: 'tool', tool_call_id: id, content: '{"user_id":"mia"}' }];
    const conversation = [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hello' }, ...['1', '2', '3', '4'].flatMap(lookup), { role: 'assistant', content: 'goodbye' }];
    const root = folder({ 'workflow.yaml': WORKFLOW });
    writeFileSync(join(root, 'loop.yaml'), scenarioYaml({ workflow: 'workflow.yaml', conversation, expect: { loops: ['repeated-action'] } }));
    writeFileSync(join(root, 'none.yaml'), scenarioYaml({ workflow: 'workflow.yaml', conversation, expect: { loops: 0 } }));
    const report = await runScenarios((await loadScenarios([root])).scenarios);
    expect(report.results.map((result) => result.status)).toEqual(['passed', 'failed']);
    expect(report.results[1]!.mismatches).toEqual([{ field: 'loops', expected: 0, actual: 1 }]);
  });
});
