import { extname } from 'node:path';
import { isReadFailure, readFailureLine } from '../../diagnostics/read-failure.js';
import { RulebaseError } from '../../errors/index.js';
import { loadRulebase } from '../../rules/index.js';
import { workflowSummary } from '../../workflow/index.js';
import { readProxy, renderProxyReport, ProxyUnreachable } from '../info/proxy-info.js';
import { renderRulebaseInfo, rulebaseInfo } from '../info/rulebase-info.js';
import { renderWorkflowInfo } from '../info/workflow-info.js';
import { printFileReports, renderDiagnostic, type Output } from '../output.js';
import { registryOrReport } from '../extension-modules.js';
import { checkWorkflowFile, describeWorkflow } from './validate.js';

export interface InfoCommandOptions {
  /** Print JSON rather than text. */
  json?: boolean;
  /** The proxy key, for a proxy URL (`GET /info` is behind it). @default PANOPTES_PROXY_KEY */
  key?: string;
  /** `--module <file>`: modules whose constraint types, strategies and tiers the workflow may name. */
  module?: string[];
}

/**
 * `panoptes info <target>`: what a workflow file, a rulebase (`.rules`) or a running proxy (an http(s) URL) holds:
 * states, transitions, constraints and interventions; contexts, data, askables, rules and facts; a proxy's health,
 * workflow and traffic.
 * @returns 0, or 1 when the file has errors, a `--module` does not load, or the proxy does not answer.
 */
export async function infoCommand(target: string, options: InfoCommandOptions, output: Output): Promise<number> {
  const print = (value: unknown, lines: string[]) => {
    if (options.json) output.out(JSON.stringify(value, null, 2));
    else for (const line of lines) output.out(line);
    return 0;
  };
  if (/^https?:\/\//i.test(target)) {
    try {
      const report = await readProxy(target, options.key ?? process.env.PANOPTES_PROXY_KEY);
      return print(report, renderProxyReport(report));
    } catch (error) {
      if (!(error instanceof ProxyUnreachable)) throw error;
      output.err(error.message);
      return 1;
    }
  }
  if (extname(target).toLowerCase() === '.rules') {
    try {
      const info = rulebaseInfo(await loadRulebase(target));
      return print(info, renderRulebaseInfo(info));
    } catch (error) {
      if (!RulebaseError.isInstance(error)) throw error;
      for (const diagnostic of error.diagnostics) output.err(isReadFailure(diagnostic) ? readFailureLine(diagnostic) : renderDiagnostic(diagnostic, output));
      return 1;
    }
  }
  const registry = await registryOrReport(options.module, output);
  if (!registry) return 1;
  const { report, workflow } = await checkWorkflowFile(target, true, registry);
  const [unread] = report.diagnostics.filter(isReadFailure);
  if (unread) {
    output.err(readFailureLine(unread));
    return 1;
  }
  if (!report.ok || workflow === undefined) return printFileReports([report], false, { ...output, out: output.err }, describeWorkflow);
  const summary = workflowSummary(workflow);
  return print(summary, renderWorkflowInfo(summary, target));
}
