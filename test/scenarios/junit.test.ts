// @vitest-environment jsdom
// jsdom gives the test a real XML parser (`DOMParser`), so the report is read back as a CI server would.
import { describe, expect, it } from 'vitest';
import { renderJUnit, type ScenarioReport, type ScenarioResult } from '../../src/scenarios/index.js';

const actual: ScenarioResult['actual'] = { trace: ['start', 'done'], finalState: 'done', verdicts: {}, violations: [], refused: [], loops: [], interventions: [], guarded: [], refusedBy: [] };

describe('renderJUnit', () => {
  it('parses back with one case per scenario, the diff in the failure, errors for scenarios and files that could not run', () => {
    const report: ScenarioReport = {
      results: [
        { name: 'bad <one> & "quoted"', file: 's/bad.yaml', status: 'failed', mismatches: [{ field: 'final_state', expected: 'start', actual: 'done' }], durationMs: 2, actual },
        { name: 'good', file: 's/good.yaml', status: 'passed', mismatches: [], durationMs: 1, actual },
        { name: 'no workflow', file: 's/none.yaml', status: 'error', error: 'no workflow: add `workflow:`', mismatches: [], durationMs: 0, actual },
      ],
      problems: [{ file: 'broken.yaml', text: 'broken.yaml:1:1 error yaml-syntax \u0001' }],
      coverage: { constraints: {}, interventions: {}, guards: {} },
      summary: { scenarios: 3, passed: 1, failed: 1, errors: 1, problems: 1, durationMs: 3 },
    };
    // The DOM lib is not in the project's types; jsdom puts the parser on the global object.
    const { DOMParser } = globalThis as unknown as { DOMParser: new () => { parseFromString(text: string, type: string): { querySelector(s: string): XmlElement | null; querySelectorAll(s: string): Iterable<XmlElement> } } };
    const xml = new DOMParser().parseFromString(renderJUnit(report), 'text/xml');
    expect(xml.querySelector('parsererror')).toBeNull();
    const suite = xml.querySelector('testsuite')!;
    expect([suite.getAttribute('tests'), suite.getAttribute('failures'), suite.getAttribute('errors')]).toEqual(['4', '1', '2']);
    const cases = [...xml.querySelectorAll('testcase')];
    expect(cases.map((node) => node.getAttribute('name'))).toEqual(['bad <one> & "quoted"', 'good', 'no workflow', 'broken.yaml']);
    expect(cases[0]!.querySelector('failure')!.textContent).toBe('final_state: expected "start", got "done"');
    expect(cases[2]!.querySelector('error')!.getAttribute('message')).toBe('no workflow: add `workflow:`');
    expect(cases[3]!.querySelector('error')!.getAttribute('message')).toBe('broken.yaml:1:1 error yaml-syntax ');
  });
});

interface XmlElement {
  getAttribute(name: string): string | null;
  querySelector(selector: string): XmlElement | null;
  textContent: string | null;
}
