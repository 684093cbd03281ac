import { didYouMean } from '../diagnostics/index.js';
import { TEMPLATE_VARIABLES } from '../intervene/template.js';
import type { Finding } from './findings.js';
import { compileExpression, type CompiledExpression } from './guard.js';
import type { DefinitionPaths } from './normalise.js';
import { compilePattern } from './regex.js';
import type { WorkflowDefinition } from './types.js';

/** What the checks compile, kept so a workflow compiles each pattern and expression exactly once. */
export interface CompiledParts {
  /** Compiled classification patterns by state name. */
  patterns: Map<string, RegExp[]>;
  /** Compiled guard expressions by their text. */
  expressions: Map<string, CompiledExpression>;
}

/**
 * Compiles and checks the parts that run at classification and transition time: patterns (syntax, catastrophic
 * backtracking), guard expressions (CEL syntax, types, variables), numbers a typed definition can still get wrong,
 * and template variables.
 */
export function checkCompiledParts(definition: WorkflowDefinition, paths: DefinitionPaths, report: (finding: Finding) => void): CompiledParts {
  const compiled: CompiledParts = { patterns: new Map(), expressions: new Map() };
  definition.states.forEach((state, index) => {
    const statePaths = paths.states[index]!;
    const { minSimilarity } = state.classification;
    if (!(minSimilarity > 0 && minSimilarity <= 1)) {
      report({ severity: 'error', code: 'out-of-range', message: `expected a number in (0, 1], got ${minSimilarity}`, path: [...statePaths.item, 'classification', 'min_similarity'] });
    }
    const regexes: RegExp[] = [];
    state.classification.patterns.forEach((source, position) => {
      const { regex, problem } = compilePattern(source);
      if (regex) regexes.push(regex);
      if (problem) report({ ...problem, path: [...statePaths.patterns, position] });
    });
    if (!compiled.patterns.has(state.name)) compiled.patterns.set(state.name, regexes);
  });

  definition.transitions.forEach((transition, index) => {
    const { guard } = transition;
    const transitionPaths = paths.transitions[index]!;
    if (guard?.minConfidence !== undefined && !(guard.minConfidence >= 0 && guard.minConfidence <= 1)) {
      report({ severity: 'error', code: 'out-of-range', message: `expected a number in [0, 1], got ${guard.minConfidence}`, path: transitionPaths.minConfidence });
    }
    const expression = guard?.expression;
    if (expression === undefined || compiled.expressions.has(expression)) return;
    const { program, problem } = compileExpression(expression);
    if (program) compiled.expressions.set(expression, program);
    if (problem) report({ severity: 'error', ...problem, path: transitionPaths.expression });
  });

  for (const [name, intervention] of Object.entries(definition.interventions)) {
    if (!(Number.isInteger(intervention.maxApplications) && intervention.maxApplications >= 1)) {
      report({ severity: 'error', code: 'out-of-range', message: `expected a whole number >= 1, got ${intervention.maxApplications}`, path: ['interventions', name, 'max_applications'] });
    }
    for (const [, variable] of intervention.template.matchAll(/\{([a-z_][a-z0-9_]*)\}/gi)) {
      if ((TEMPLATE_VARIABLES as readonly string[]).includes(variable!)) continue;
      const suggestion = didYouMean(variable!, TEMPLATE_VARIABLES);
      report({
        severity: 'warning',
        code: 'unknown-template-variable',
        message: `template variable '{${variable}}' is not known and will be left as written`,
        path: ['interventions', name],
        hint: suggestion || `known variables: ${TEMPLATE_VARIABLES.join(', ')}`,
      });
    }
  }
  return compiled;
}
