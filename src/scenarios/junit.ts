import type { ScenarioReport } from './types.js';

/**
 * The report as JUnit XML, the format CI servers read:
 * one suite, one `<testcase>` per scenario (`classname` its file), a `<failure>` holding the diff for a failed one,
 * an `<error>` for one that could not run, and one `<error>` case per unreadable scenario file.
 */
export function renderJUnit(report: ScenarioReport): string {
  const { summary } = report;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const cases = report.results.map((result) => {
    const open = `    <testcase name="${escapeXml(result.name)}" classname="${escapeXml(result.file)}" time="${seconds(result.durationMs)}"`;
    if (result.status === 'passed') return `${open}/>`;
    if (result.status === 'error') return `${open}>\n      <error message="${escapeXml(result.error ?? 'error')}"/>\n    </testcase>`;
    const diff = result.mismatches.map((mismatch) => `${mismatch.field}: expected ${JSON.stringify(mismatch.expected)}, got ${JSON.stringify(mismatch.actual)}`);
    return `${open}>\n      <failure message="${escapeXml(`${result.mismatches.length} expectation(s) did not hold`)}">${escapeXml(diff.join('\n'))}</failure>\n    </testcase>`;
  });
  const problems = report.problems.map((problem) => `    <testcase name="${escapeXml(problem.file)}" classname="scenario-files">\n      <error message="${escapeXml(problem.text)}"/>\n    </testcase>`);
  const tests = summary.scenarios + report.problems.length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="panoptes test" tests="${tests}" failures="${summary.failed}" errors="${summary.errors + report.problems.length}" time="${seconds(summary.durationMs)}">`,
    `  <testsuite name="panoptes scenarios" tests="${tests}" failures="${summary.failed}" errors="${summary.errors + report.problems.length}" time="${seconds(summary.durationMs)}">`,
    ...cases,
    ...problems,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** Escapes text for an XML attribute or element, and drops the control characters XML 1.0 cannot hold. */
export function escapeXml(text: string): string {
  return text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}
