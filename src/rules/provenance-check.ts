import type { Diagnostic } from '../diagnostics/index.js';
import type { Position, SinkDeclaration, SourceDeclaration } from './ast.js';

interface ProvenanceCheckers {
  checkTool: (name: string, pos: Position, path: string) => void;
  checkParameterNames: (tool: string, names: readonly string[], pos: Position, path: string) => void;
  report: (severity: Diagnostic['severity'], code: string, pos: Position, path: string, message: string, hint?: string) => void;
}

const SINK_KINDS = ['recipient', 'payment', 'egress', 'destructive', 'credential', 'booking', 'invite', 'publish', 'target'];

/**
 * Load-time checks of `source` and `sink` declarations: the tool is one of the agent's, a sink's parameters exist in
 * the tool's schema, a sink names each parameter once. An unusual sink kind is a warning (kinds are free labels).
 */
export function checkProvenanceDeclaration(declaration: SourceDeclaration | SinkDeclaration, { checkTool, checkParameterNames, report }: ProvenanceCheckers): void {
  if (declaration.kind === 'source') {
    if (declaration.tool !== '*') checkTool(declaration.tool, declaration.pos, `source ${declaration.tool}`);
    return;
  }
  const path = `sink ${declaration.tool}`;
  checkTool(declaration.tool, declaration.pos, path);
  checkParameterNames(declaration.tool, declaration.params, declaration.pos, path);
  const seen = new Set<string>();
  for (const param of declaration.params) {
    if (seen.has(param)) report('error', 'duplicate-parameter', declaration.pos, path, `parameter '${param}' appears twice`);
    seen.add(param);
  }
  if (!SINK_KINDS.includes(declaration.sinkKind)) {
    report('warning', 'unusual-sink-kind', declaration.pos, path, `'${declaration.sinkKind}' is not a usual sink kind`, `usual kinds: ${SINK_KINDS.join(', ')}`);
  }
}
