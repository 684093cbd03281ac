import { isHostControlFlow } from '../errors/index.js';
import type { CompiledDataDeclaration, Value } from '../rules/index.js';
import { evaluateJsonPath } from '../rules/index.js';
import type { Sleep } from './sleep.js';

/** A fact extracted from a data tool's result, ready for `FactStore.recordFetch`. */
export interface ExtractedFact {
  predicate: string;
  args: Value[];
  ttlMs?: number;
  multiple?: boolean;
}

/**
 * The facts one data declaration yields from a tool result. Outputs that fan out (a `[*]`, or a list at the end)
 * are zipped element by element and must agree on the count; single outputs are repeated for each element. An
 * output that is also a tool input keeps only the facts that agree with the input.
 * Returns an error when the result does not have the shape the paths expect.
 */
export function extractFacts(declaration: CompiledDataDeclaration, toolArgs: Record<string, Value>, result: unknown): { facts: ExtractedFact[] } | { error: string } {
  const known = new Map<string, Value>();
  for (const arg of declaration.toolArgs) {
    if (arg.value.kind === 'var') known.set(arg.value.name, toolArgs[arg.name]!);
  }
  const columns: Array<{ variable: string; values: Value[]; expanded: boolean }> = [];
  for (let index = 0; index < declaration.outputs.length; index++) {
    const output = declaration.outputs[index]!;
    const evaluated = evaluateJsonPath(result, declaration.paths[index]!);
    if ('mismatch' in evaluated && evaluated.absent) {
      // A field the record does not have is absent, not a failed fetch: the default, or no fact at all.
      if (output.default === undefined) return { facts: [] };
      columns.push({ variable: output.variable, values: [output.default], expanded: false });
      continue;
    }
    if ('mismatch' in evaluated) return { error: `${declaration.tool} result does not fit ${output.path}: ${evaluated.mismatch}` };
    columns.push({ variable: output.variable, values: evaluated.values, expanded: evaluated.expanded });
  }
  const fanned = columns.filter((column) => column.expanded);
  const count = fanned.length === 0 ? 1 : fanned[0]!.values.length;
  const disagreeing = fanned.find((column) => column.values.length !== count);
  if (disagreeing) {
    return { error: `${declaration.tool} result: ${declaration.outputs.map((output) => output.path).join(' and ')} give different numbers of elements (${count} and ${disagreeing.values.length})` };
  }
  const facts: ExtractedFact[] = [];
  for (let element = 0; element < count; element++) {
    const row = new Map(known);
    let agrees = true;
    for (const column of columns) {
      const value = column.expanded ? column.values[element]! : column.values[0]!;
      if (row.has(column.variable) && JSON.stringify(row.get(column.variable)) !== JSON.stringify(value)) agrees = false;
      row.set(column.variable, value);
    }
    if (!agrees) continue;
    facts.push({
      predicate: declaration.predicate,
      args: declaration.params.map((param) => row.get(param) ?? null),
      ...(declaration.ttlMs !== undefined ? { ttlMs: declaration.ttlMs } : {}),
      ...(fanned.length > 0 ? { multiple: true } : {}),
    });
  }
  return { facts };
}

/** Whether a data declaration applies to a call: same parameter names, and its constant arguments match. */
export function declarationFits(declaration: CompiledDataDeclaration, toolArgs: Record<string, Value>): boolean {
  if (declaration.toolArgs.length !== Object.keys(toolArgs).length) return false;
  for (const arg of declaration.toolArgs) {
    if (!Object.hasOwn(toolArgs, arg.name)) return false;
    if (arg.value.kind === 'constant' && JSON.stringify(arg.value.value) !== JSON.stringify(toolArgs[arg.name])) return false;
  }
  return true;
}

/**
 * Runs a tool's handler, turning a throw, a rejection or a timeout into a reason instead of an exception: a failing
 * data tool blocks the proof, it never crashes the agent.
 */
export async function callTool(
  tool: string,
  execute: (args: Record<string, unknown>, options: { signal: AbortSignal }) => unknown,
  args: Record<string, Value>,
  timeoutMs: number,
  sleep: Sleep,
): Promise<{ ok: true; result: unknown } | { ok: false; reason: string }> {
  const controller = new AbortController();
  const timer = new AbortController();
  const timedOut = sleep(timeoutMs, timer.signal).then(() => 'timeout' as const);
  try {
    const call = Promise.resolve().then(() => execute({ ...args }, { signal: controller.signal }));
    const winner = await Promise.race([call.then((result) => ({ result })), timedOut]);
    if (winner === 'timeout') {
      controller.abort();
      return { ok: false, reason: `${tool} did not answer within ${timeoutMs} ms` };
    }
    return { ok: true, result: winner.result };
  } catch (error) {
    if (isHostControlFlow(error)) throw error; // an interrupt pauses the run; it is not the tool failing
    return { ok: false, reason: `${tool} failed: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    timer.abort();
  }
}
