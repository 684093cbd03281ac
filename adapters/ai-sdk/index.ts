/**
 * Panoptes for the Vercel AI SDK (`ai` v6): a language-model middleware that applies interventions and classifies
 * responses, tool guards that refuse calls before they run (the workflow, the rules, then a judge's rubrics), and a
 * `stopWhen` condition for hard blocks.
 * @module panoptes/ai-sdk
 */
export { panoptesMiddleware, type PanoptesMiddlewareOptions } from './middleware.js';
export { guardTools, type GuardToolsOptions } from './guard-tools.js';
export { ToolCallRefusedError } from './tool-call-refused-error.js';
export { panoptesStopCondition, type PanoptesStopCondition, type PanoptesStopConditionOptions } from './stop-condition.js';
export { policyTools, type PolicyToolOutput, type PolicyToolsOptions } from './policy-tools.js';
export { SESSION_ID_HEADER, sessionIdFromMetadata } from './session-id.js';
export { compilerModel, type AiSdkCompilerModelOptions } from './compiler-model.js';
export { judgeModel, type AiSdkJudgeModelOptions } from './judge-model.js';
