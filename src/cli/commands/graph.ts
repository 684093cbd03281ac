import { isReadFailure, readFailureLine } from '../../diagnostics/read-failure.js';
import { workflowToMermaid } from '../../workflow/index.js';
import { printFileReports, type Output } from '../output.js';
import { registryOrReport } from '../extension-modules.js';
import { checkWorkflowFile, describeWorkflow } from './validate.js';

export interface GraphCommandOptions {
  /** `--no-strict`: draw a workflow whose only errors are references to unknown states, as `validate --no-strict` accepts it. */
  strict?: boolean;
  /** `--module <file>`: modules whose constraint types, strategies and tiers the workflow may name. */
  module?: string[];
}

/**
 * `panoptes graph <file>`: prints the workflow as a Mermaid state diagram (paste it into a Markdown file or
 * mermaid.live). A file that `panoptes validate` rejects is not drawn: a diagram of it would show moves the monitor
 * never makes. Its diagnostics go to stderr, as `validate` prints them, so stdout holds only diagrams.
 * @returns the exit code: 0 when drawn, 1 when the file has errors or a `--module` does not load.
 */
export async function graphCommand(file: string, { strict = true, module: modules }: GraphCommandOptions, output: Output): Promise<number> {
  const registry = await registryOrReport(modules, output);
  if (!registry) return 1;
  const { report, workflow } = await checkWorkflowFile(file, strict, registry);
  // A file that is not there has nothing to report but that: one line, not a file report.
  const [unread] = report.diagnostics.filter(isReadFailure);
  if (unread) {
    output.err(readFailureLine(unread));
    return 1;
  }
  if (!report.ok || workflow === undefined) return printFileReports([report], false, { ...output, out: output.err }, describeWorkflow);
  output.out(workflowToMermaid(workflow).trimEnd());
  return 0;
}
