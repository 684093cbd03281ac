import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, panoptes as run, ROOT } from './binary.js';

/** `panoptes verify` with an A/B split, as users run it: the built binary, offline (scripted answers on both arms). */
const EXAMPLE = 'examples/verification/expenses';
const panoptes = (...args: string[]) => run(ROOT, ...args);
const job = (...more: string[]) => ['verify', '--policy', `${EXAMPLE}/travel-policy.md`, '--criteria', `${EXAMPLE}/criteria.yaml`, '--cases', `${EXAMPLE}/claims.jsonl`, '--scripted', `${EXAMPLE}/answers.json`, ...more];
type Answer = { case: string; criterion: string; status: string; confidence: number };
const answers = JSON.parse(readFileSync(join(ROOT, EXAMPLE, 'answers.json'), 'utf8')) as Answer[];

/** A scratch folder with a candidate that is never sure, and labels equal to the primary's answers. */
function setup() {
  const folder = mkdtempSync(join(tmpdir(), 'panoptes-ab-'));
  const candidate = join(folder, 'candidate.json');
  writeFileSync(candidate, JSON.stringify(answers.map((answer) => ({ ...answer, status: 'uncertain', confidence: 0.3 }))));
  const labels = join(folder, 'labels.jsonl');
  writeFileSync(labels, answers.map((answer) => JSON.stringify({ caseId: answer.case, criterionId: answer.criterion, status: answer.status })).join('\n'));
  return { folder, candidate, labels };
}

describe('panoptes verify --candidate-scripted --ab-share (built binary)', () => {
  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first (\`npm test\` does).`);
  });

  it('sends a share of the cases to the candidate, marks each result with its arm, and prints each arm’s quality', async () => {
    const { candidate, labels } = setup();
    const { code, stdout, stderr } = await panoptes(...job('--candidate-scripted', candidate, '--ab-share', '50%', '--labels', labels));
    expect(code).toBe(0);
    const results = stdout.trim().split('\n').map((line) => JSON.parse(line) as { caseId: string; criterionId: string; status: string; arm: string });
    expect(results).toHaveLength(30);
    const armOf = new Map<string, string>();
    for (const result of results) {
      // sticky: every criterion of a case on one arm; the candidate's verdicts are its own
      expect(armOf.get(result.caseId) ?? result.arm).toBe(result.arm);
      armOf.set(result.caseId, result.arm);
      if (result.arm === 'candidate') expect(result.status).toBe('uncertain');
    }
    const candidateRuns = results.filter((result) => result.arm === 'candidate').length;
    expect(candidateRuns).toBeGreaterThan(0);
    expect(candidateRuns).toBeLessThan(30);
    expect(stderr).toContain('A/B (50% of cases to the candidate)');
    // each arm's agreement with the labels and uncertain rate, as the results file says
    const label = new Map(answers.map((answer) => [`${answer.case}/${answer.criterion}`, answer.status]));
    for (const arm of ['primary', 'candidate']) {
      const mine = results.filter((result) => result.arm === arm);
      const agreed = mine.filter((result) => label.get(`${result.caseId}/${result.criterionId}`) === result.status).length;
      const uncertain = mine.filter((result) => result.status === 'uncertain').length;
      const percent = (count: number) => `${((count / mine.length) * 100).toFixed(1)}%`;
      expect(stderr).toMatch(new RegExp(`^${arm} +${mine.length} +${percent(agreed).replace('.', '\\.')} of ${mine.length} +${percent(uncertain).replace('.', '\\.')} +0 `, 'm'));
    }
    expect(stderr).toContain('run now with scripted answers (answers.json), A/B: 50% of cases to scripted answers (candidate.json)');
    // the same split on a second run
    const again = await panoptes(...job('--candidate-scripted', candidate, '--ab-share', '0.5'));
    const armsAgain = again.stdout.trim().split('\n').map((line) => JSON.parse(line) as { caseId: string; arm: string });
    for (const result of armsAgain) expect(result.arm).toBe(armOf.get(result.caseId));
  });

  it('--ab-rollback-when: while the file exists, every case goes to the primary', async () => {
    const { folder, candidate } = setup();
    const flag = join(folder, 'ROLLBACK');
    writeFileSync(flag, '');
    const { code, stdout, stderr } = await panoptes(...job('--candidate-scripted', candidate, '--ab-share', '1', '--ab-rollback-when', flag));
    expect(code).toBe(0);
    expect(new Set(stdout.trim().split('\n').map((line) => (JSON.parse(line) as { arm: string }).arm))).toEqual(new Set(['primary']));
    expect(stderr).toContain('A/B (rolled back: new cases went to the primary)');
  });

  it('refuses A/B flags that do not fit, naming the flag and what to pass (exit 2)', async () => {
    const { folder, candidate } = setup();
    const badLabels = join(folder, 'bad-labels.jsonl');
    writeFileSync(badLabels, '{"caseId": "EXP-1001", "criterionId": "receipts", "status": "yes"}\n');
    const unknownCase = join(folder, 'unknown-case.jsonl');
    writeFileSync(unknownCase, '{"caseId": "EXP-9", "criterionId": "receipts", "status": "met"}\n');
    const cases: Array<[string[], string]> = [
      [['--ab-share', '0.1'], '--ab-share needs a candidate to compare with the verifier: add --candidate-model <provider:name> or --candidate-scripted <answers.json>'],
      [['--labels', badLabels, '--ab-rollback-when', 'x'], '--labels, --ab-rollback-when need a candidate to compare with the verifier'],
      [['--candidate-scripted', candidate], '--candidate-scripted needs --ab-share: the share of cases the candidate judges, 0.1 or 10% to start'],
      [['--candidate-scripted', candidate, '--candidate-model', 'openai:gpt-4o', '--ab-share', '0.1'], '--candidate-model and --candidate-scripted: pass one candidate, not both'],
      [['--candidate-scripted', candidate, '--ab-share', '1.5'], '--ab-share: expected a fraction from 0 to 1 (0.1) or a percentage (10%), got "1.5"'],
      [['--candidate-scripted', candidate, '--ab-share', 'half'], '--ab-share: expected a fraction from 0 to 1 (0.1) or a percentage (10%), got "half"'],
      [['--candidate-scripted', candidate, '--ab-share', '0.1', '--labels', badLabels], `${badLabels}:1:51: "status" must be one of met, not_met, uncertain, got "yes"`],
      [['--candidate-scripted', candidate, '--ab-share', '0.1', '--labels', unknownCase], `${unknownCase}:1:2: "caseId" "EXP-9" is not a case of --cases`],
      [['--candidate-scripted', join(folder, 'missing.json'), '--ab-share', '0.1'], 'missing.json'],
    ];
    for (const [flags, message] of cases) {
      const { code, stderr } = await panoptes(...job(...flags));
      expect({ flags, code, stderr: stderr.includes(message) ? message : stderr }).toEqual({ flags, code: 2, stderr: message });
    }
  });
});
