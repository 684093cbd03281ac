/** The rule language: syntax tree, parser with positioned errors, load-time checks. */
export type {
  ArithmeticOperator,
  AskableDeclaration,
  ComparisonOperator,
  ContextDeclaration,
  DataDeclaration,
  DataOutput,
  Declaration,
  GivenDeclaration,
  GuardDeclaration,
  LiteralNode,
  Position,
  RuleDeclaration,
  SinkDeclaration,
  SourceDeclaration,
  StrictDeclaration,
  TermNode,
  Value,
  WriteDeclaration,
} from './ast.js';
export { BUILTIN_PREDICATES, isBuiltinPredicate } from './builtins.js';
export { evaluateJsonPath, parseJsonPath, type PathSegment } from './json-path.js';
export { checkRulebaseFile, loadRulebase, type LoadRulebaseOptions } from './load.js';
export { parseGoalText } from './parser.js';
export { MAX_NESTING_DEPTH } from '../limits/index.js';
export {
  analyzeRulebase,
  parseRulebase,
  resolveGoalContexts,
  type CompiledDataDeclaration,
  type ParseRulebaseOptions,
  type Rulebase,
  type ToolSpec,
} from './rulebase.js';
export { formatTermNode, formatLiteralNode } from './format.js';
export { trustOfResult, type DefaultTrust } from './provenance-trust.js';
