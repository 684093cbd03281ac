import { readFile } from 'node:fs/promises';
import { readFailureDiagnostic, readFailureLine } from '../../diagnostics/read-failure.js';
import { checkRulebaseFile, type ToolSpec } from '../../rules/index.js';
import { printFileReports, type Output } from '../output.js';

export interface RulesCheckCommandOptions {
  json?: boolean;
  /**
   * A JSON file listing the agent's tools: OpenAI tool definitions (`{ type: 'function', function: { name,
   * parameters } }`), `{ name, parameters }` objects or names. With it, unknown tools and tool parameters are errors.
   */
  tools?: string;
}

/**
 * `panoptes rules check <file...>`: checks rulebase files and prints each diagnostic compiler style
 * (`policy.rules:12:5 error ...`), like `panoptes validate` does for workflows.
 * @returns the exit code: 0 when no file has errors (warnings allowed), 1 otherwise.
 */
export async function rulesCheckCommand(files: string[], { json = false, tools: toolsFile }: RulesCheckCommandOptions, output: Output): Promise<number> {
  const tools = toolsFile === undefined ? undefined : await readTools(toolsFile);
  if (typeof tools === 'string') {
    output.err(tools);
    return 1;
  }
  const reports = await Promise.all(
    files.map(async (file) => {
      const diagnostics = await checkRulebaseFile(file, tools ? { tools } : {});
      return { file, ok: !diagnostics.some((diagnostic) => diagnostic.severity === 'error'), diagnostics };
    }),
  );
  return printFileReports(reports, json, output);
}

/** The tool list, or the reason it cannot be read. */
async function readTools(file: string): Promise<ToolSpec[] | string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return readFailureLine(readFailureDiagnostic(file, error, 'check the --tools path'));
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `${file}: not JSON: ${(error as Error).message}`;
  }
  if (!Array.isArray(value)) return `${file}: expected a JSON array of tool definitions`;
  const tools: ToolSpec[] = [];
  for (const [index, entry] of value.entries()) {
    const tool = typeof entry === 'string' ? entry : (entry?.function ?? entry);
    if (typeof tool !== 'string' && typeof tool?.name !== 'string') return `${file}: [${index}] is not a tool: expected a name or an object with "name" (or "function.name")`;
    tools.push(tool as ToolSpec);
  }
  return tools;
}

