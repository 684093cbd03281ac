import { describe, expect, it } from 'vitest';
import { formatDiagnostic, loadRubrics, parseRubrics, RubricError, validateRubrics } from '../../src/index.js';

const RUBRIC = `rubrics:
  - id: no_refund_amounts
    description: The agent never promises a refund amount before the assessment.
    scope: turn
    applies_to: { states: [assess] }
    criteria:
      - id: no_amount
        description: The response names no refund amount.
        scale: binary
        weight: 2
      - id: tone
        description: The response is polite.
        scale: likert_5
        fail_below: 2
        anchors: { 1: rude, 5: warm }
    pass_at: 0.8
    on_fail: block
    on_error: ask
    sample: 0.5
`;

function errors(text: string) {
  return validateRubrics(text, { source: 'r.yaml' }).diagnostics.map(formatDiagnostic);
}

describe('rubric files', () => {
  it('loads every field, with defaults and a content version', () => {
    const [rubric] = parseRubrics(RUBRIC, { source: 'r.yaml' });
    expect(rubric).toMatchObject({
      id: 'no_refund_amounts',
      scope: 'turn',
      appliesTo: { states: ['assess'] },
      passAt: 0.8,
      onFail: 'block',
      onError: 'ask',
      sample: 0.5,
      everyTurns: 1,
      source: 'r.yaml:2',
      criteria: [
        { id: 'no_amount', scale: 'binary', weight: 2 },
        { id: 'tone', scale: 'likert_5', weight: 1, failBelow: 2, anchors: { 1: 'rude', 5: 'warm' } },
      ],
    });
    expect(rubric!.version).toMatch(/^[0-9a-f]{12}$/);
    // Editing the wording changes the version, so cached verdicts of the old text are never replayed.
    const [edited] = parseRubrics(RUBRIC.replace('is polite', 'is kind'));
    expect(edited!.version).not.toBe(rubric!.version);
    expect(parseRubrics(`version: "3"\n${RUBRIC}`)[0]!.version).toBe('3');
  });

  it('turns the policy shorthand into one binary rubric', () => {
    const [rubric] = parseRubrics('policy:\n  - Never promise a refund amount.\n  - Stay on the topic.\n');
    expect(rubric).toMatchObject({ id: 'policy', scope: 'turn', passAt: 1, onFail: 'block', onError: 'ask' });
    expect(rubric!.criteria.map((criterion) => [criterion.id, criterion.scale, criterion.description])).toEqual([
      ['rule_1', 'binary', 'Never promise a refund amount.'],
      ['rule_2', 'binary', 'Stay on the topic.'],
    ]);
    const [mail] = parseRubrics('policy:\n  id: mail\n  scope: tool_call\n  applies_to: { tools: [send_email] }\n  on_error: deny\n  rules: [No customer data to third parties.]\n');
    expect(mail).toMatchObject({ id: 'mail', scope: 'tool_call', appliesTo: { tools: ['send_email'] }, onError: 'deny' });
  });

  it('requires on_error and names the line', () => {
    expect(errors(RUBRIC.replace('    on_error: ask\n', ''))).toEqual(["r.yaml:2:5 error rubrics[0].on_error: missing required key 'on_error'; expected one of: allow, deny, ask"]);
  });

  it('reports each bad input with file, line, field and a fix', () => {
    expect(errors(RUBRIC.replace('scope: turn', 'scope: turns'))).toEqual(["r.yaml:4:12 error rubrics[0].scope: invalid scope \"turns\"; expected one of: tool_call, turn, conversation; did you mean 'turn'?"]);
    expect(errors(RUBRIC.replace('scale: likert_5', 'scale: likert_9'))).toEqual([expect.stringMatching(/^r\.yaml:13:16 error rubrics\[0\]\.criteria\[1\]\.scale: invalid scale "likert_9"; expected one of: binary, likert_3, likert_5, likert_7/)]);
    expect(errors(RUBRIC.replace('pass_at: 0.8', 'pass_at: 1.5'))).toEqual(['r.yaml:16:14 error rubrics[0].pass_at: expected a number <= 1, got 1.5']);
    expect(errors(RUBRIC.replace('on_fail: block', 'on_fail: stop'))).toEqual([expect.stringContaining('r.yaml:17:14 error rubrics[0].on_fail: invalid on_fail "stop"; expected one of: warn, intervene, block, ask')]);
    expect(errors(RUBRIC.replace('on_error: ask', 'on_error: warn'))).toEqual([expect.stringContaining('r.yaml:18:15 error rubrics[0].on_error: invalid on_error "warn"; expected one of: allow, deny, ask')]);
    expect(errors(RUBRIC.replace('sample: 0.5', 'sample: 2'))).toEqual(['r.yaml:19:13 error rubrics[0].sample: expected a number <= 1, got 2']);
    expect(errors(RUBRIC.replace('weight: 2', 'weight: 0'))).toEqual(['r.yaml:10:17 error rubrics[0].criteria[0].weight: expected a number > 0, got 0']);
    expect(errors(RUBRIC.replace('fail_below: 2', 'fail_below: 9'))).toEqual(['r.yaml:14:21 error rubrics[0].criteria[1].fail_below: fail_below 9 is outside the likert_5 scale; write a score in (1, 5]: a score below it fails the rubric']);
    expect(errors(RUBRIC.replace('5: warm', '6: warm'))).toEqual(["r.yaml:15:29 error rubrics[0].criteria[1].anchors[\"6\"]: anchor '6' is not a score of the likert_5 scale; anchors are whole scores from 1 to 5"]);
    expect(errors(RUBRIC.replace('pass_at:', 'passat:'))).toEqual([
      "r.yaml:2:5 error rubrics[0].pass_at: missing required key 'pass_at'; expected a number",
      "r.yaml:16:5 error rubrics[0].passat: unknown key 'passat'; did you mean 'pass_at'?",
    ]);
    expect(errors(RUBRIC.replace('    sample: 0.5\n', '    every_turns: 3\n'))).toEqual(['r.yaml:19:5 error rubrics[0].every_turns: every_turns applies to conversation scope, not turn; remove every_turns, or set scope: conversation']);
    expect(errors(RUBRIC.replace('id: tone', 'id: no_amount'))).toEqual(["r.yaml:11:13 error rubrics[0].criteria[1].id: criterion id 'no_amount' is used twice in rubric 'no_refund_amounts'; first at criteria[0]; rename one"]);
    expect(errors(`${RUBRIC}  - ${RUBRIC.slice('rubrics:\n  - '.length).replace(/\n {4}/g, '\n    ')}`)).toEqual([expect.stringContaining("rubrics[1].id: rubric id 'no_refund_amounts' is used twice; first at rubrics[0]; rename one")]);
    expect(errors(`policy: [a]\n${RUBRIC.replace('id: no_refund_amounts', 'id: policy')}`)).toEqual([expect.stringContaining('the `policy:` shorthand is a rubric of that id')]);
    expect(errors('name: x\n')).toEqual(['r.yaml:1:1 error the file has neither `rubrics` nor `policy`; a rubric file has `rubrics:` (a list of rubrics) or `policy:` (a list of plain-English rules)']);
    expect(errors('')).toEqual([expect.stringContaining('the document is empty')]);
    expect(errors('rubrics: [\n')).toEqual([expect.stringMatching(/^r\.yaml:2:1 error /)]);
    expect(errors('policy: []\n')).toEqual([expect.stringContaining('policy')]);
  });

  it('loadRubrics names a missing file', async () => {
    await expect(loadRubrics('/nope/rubrics.yaml')).rejects.toThrow('/nope/rubrics.yaml: no such file; check the path of the rubric file');
    await expect(loadRubrics('/nope/rubrics.yaml')).rejects.toSatisfy(RubricError.isInstance);
  });
});
