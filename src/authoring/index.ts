/**
 * Authoring: compiling a written policy into a workflow, a rulebase and judged rubrics with a model,
 * validated by Panoptes and repaired by the model against the diagnostics. No provider imports: the model is a
 * function, and `panoptes/langchain` and `panoptes/ai-sdk` build one from a host model.
 * @module
 */
export { compileWorkflow, type CompiledWorkflow, type CompileWorkflowOptions } from './compile-workflow.js';
export { DEFAULT_COMPILE_TIMEOUT_MS, DEFAULT_MAX_REPAIRS, type CompileOptions, type CompileOutcome } from './compile-draft.js';
export { compileRulebase, type CompiledRulebase, type CompileRulebaseOptions } from './compile-rulebase.js';
export { compileRubrics, DEFAULT_RUBRIC_SCHEMA_REFERENCE, renderRubricYaml, type CompiledRubrics, type CompileRubricsOptions } from './compile-rubrics.js';
export { CompileError } from './compile-error.js';
export { withUsage, type AnswerWithUsage, type CompilerMessage, type CompilerModel } from './model.js';
export { RUBRIC_SYSTEM_PROMPT, RULEBASE_SYSTEM_PROMPT, WORKFLOW_SYSTEM_PROMPT } from './prompt.js';
export { quoteOccurs } from './quotes.js';
export { rubricDraftSchema, rulebaseDraftSchema, workflowDraftSchema, type RubricDraft, type RulebaseDraft, type WorkflowDraft } from './draft.js';
export type { CompileRound } from './repair.js';
export type { SourceFlag } from './render-workflow.js';
