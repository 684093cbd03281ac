import type { SourceDeclaration } from './ast.js';

/** The trust of a tool not declared by any `source`: `untrusted` (only declared tools are trusted) or `trusted`. */
export type DefaultTrust = 'trusted' | 'untrusted';

/**
 * The trust of one field of a tool's result under a rulebase's `source` declarations: the declaration for that tool
 * with the longest key path found in the field's path wins (a later one on a tie), then the tool's own, then `*`'s,
 * then `defaultTrust`.
 * @example
 * const trustOf = trustOfResult(rulebase.sources, 'untrusted');
 * trustOf('get_most_recent_transactions', ['subject']); // 'untrusted' with `source get_most_recent_transactions.subject untrusted`
 */
export function trustOfResult(sources: readonly SourceDeclaration[], defaultTrust: DefaultTrust): (tool: string, path: readonly string[]) => SourceDeclaration['trust'] {
  const byTool = new Map<string, SourceDeclaration[]>();
  for (const declaration of sources) {
    const list = byTool.get(declaration.tool);
    if (list) list.push(declaration);
    else byTool.set(declaration.tool, [declaration]);
  }
  const best = (declarations: readonly SourceDeclaration[] | undefined, path: readonly string[]): SourceDeclaration['trust'] | undefined => {
    let found: SourceDeclaration | undefined;
    for (const declaration of declarations ?? []) {
      if (!containsRun(path, declaration.path)) continue;
      if (found === undefined || declaration.path.length >= found.path.length) found = declaration;
    }
    return found?.trust;
  };
  return (tool, path) => best(byTool.get(tool), path) ?? best(byTool.get('*'), path) ?? defaultTrust;
}

/** Whether `run` appears in `path` as consecutive keys (the empty run is in every path). */
function containsRun(path: readonly string[], run: readonly string[]): boolean {
  if (run.length === 0) return true;
  for (let start = 0; start + run.length <= path.length; start++) {
    let matches = true;
    for (let index = 0; index < run.length && matches; index++) matches = path[start + index] === run[index];
    if (matches) return true;
  }
  return false;
}
