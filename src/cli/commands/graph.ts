import { loadWorkflow, workflowToMermaid } from '../../workflow/index.js';
import type { Output } from '../output.js';

/**
 * `panoptes graph <file>`: prints the workflow as a Mermaid state diagram (paste it into a Markdown file or
 * mermaid.live). Loads with `strict: false` so a diagram can help find a misspelt state.
 * @returns the exit code.
 */
export async function graphCommand(file: string, output: Output): Promise<number> {
  const workflow = await loadWorkflow(file, { strict: false });
  output.out(workflowToMermaid(workflow).trimEnd());
  return 0;
}
