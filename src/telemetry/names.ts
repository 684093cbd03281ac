/**
 * Every span, event, attribute and metric name Panoptes emits, in one place (docs/telemetry.md prints the same list).
 * OpenTelemetry GenAI semantic-convention names where one applies, `panoptes.*` for the rest.
 */

/** Span names. A guard span is named `panoptes.guard {tool}`. */
export const SPAN = {
  /** One monitored model response: its classification, the workflow's moves and verdicts (`monitor.afterModel`). */
  check: 'panoptes.check',
  /**
   * `monitor.beforeModel`, only when something happened: interventions applied, the call blocked, or the workflow
   * effects of the last turn's tool calls that ran unchecked (they enter the trace now).
   */
  beforeModel: 'panoptes.before_model',
  /** `monitor.endSession`: the session closed, its final verdicts and the violations found by closing it. */
  endSession: 'panoptes.end_session',
  /** One guard decision on a tool call (`monitor.beforeTool`, `sentinel.check`); the name ends with the tool's. */
  guard: 'panoptes.guard',
  /** A loop the loop detector reported, from the step that completed it. */
  loop: 'panoptes.loop',
  /** One recorded session replayed by `panoptes audit` (a trace of its own); the name ends with the session's id. */
  audit: 'panoptes.audit',
  /** `verifyCase`: every criterion of one case. */
  verifyCase: 'panoptes.verify_case',
  /** One invocation of a verification graph (a criterion, or its resumption after a pause). */
  verifyCriterion: 'panoptes.verify_criterion',
  /** One invocation of a `createReactGraph` graph. */
  reactRun: 'panoptes.react_run',
  /** One model step of a ReAct run: the call, its retries' last attempt, its usage. */
  reactModel: 'panoptes.react_model',
  /** One tool call of a ReAct run; the name ends with the tool's. */
  reactTool: 'panoptes.react_tool',
  /** One judgment of a rubric by the LLM judge (a cache hit included); the name ends with the rubric's id. */
  judge: 'panoptes.judge',
} as const;

/** Span event names. */
export const EVENT = {
  stateChange: 'panoptes.state_change',
  violation: 'panoptes.violation',
  deviation: 'panoptes.deviation',
  refusal: 'panoptes.refusal',
  doomed: 'panoptes.doomed',
  intervention: 'panoptes.intervention',
  loop: 'panoptes.loop_detected',
  /** Panoptes failed at something and let the call through. */
  miss: 'panoptes.miss',
} as const;

/** Attribute names. */
export const ATTR = {
  // OpenTelemetry GenAI semantic conventions
  conversationId: 'gen_ai.conversation.id',
  agentName: 'gen_ai.agent.name',
  operationName: 'gen_ai.operation.name',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  /** Only with `captureContent: true`. */
  toolCallArguments: 'gen_ai.tool.call.arguments',
  // Session grouping read by Langfuse and OpenInference backends
  sessionId: 'session.id',
  // Guardrail markers of LLM-observability backends
  openInferenceSpanKind: 'openinference.span.kind',
  langfuseObservationType: 'langfuse.observation.type',
  langfuseObservationLevel: 'langfuse.observation.level',
  // Panoptes
  workflow: 'panoptes.workflow',
  /** The id a monitor of several workflows chose the session's workflow by (`createMonitor({ workflows })`). */
  workflowId: 'panoptes.workflow.id',
  state: 'panoptes.state',
  fromState: 'panoptes.state.from',
  method: 'panoptes.classification.method',
  confidence: 'panoptes.classification.confidence',
  classifiedStates: 'panoptes.classification.states',
  /** Only with `captureContent: true`. */
  content: 'panoptes.content',
  action: 'panoptes.action',
  status: 'panoptes.status',
  guardResult: 'panoptes.guard.result',
  guardBy: 'panoptes.guard.by',
  guardReason: 'panoptes.guard.reason',
  guardBlockers: 'panoptes.guard.blockers',
  guardStatus: 'panoptes.guard.status',
  constraint: 'panoptes.constraint',
  constraints: 'panoptes.constraints',
  severity: 'panoptes.severity',
  message: 'panoptes.message',
  intervention: 'panoptes.intervention.name',
  strategy: 'panoptes.intervention.strategy',
  /** Only with `captureContent: true`. */
  interventionText: 'panoptes.intervention.text',
  refusedBy: 'panoptes.refused_by',
  /** A response withheld before delivery (`panoptes.check`, a violation event, `panoptes.violations`, `panoptes.regenerations`). */
  withheld: 'panoptes.withheld',
  /** What replaced a withheld response: the workflow's user message (`panoptes.check`). */
  userMessage: 'panoptes.user_message',
  loopKind: 'panoptes.loop.kind',
  loopAction: 'panoptes.loop.action',
  loopDetection: 'panoptes.loop.detection',
  loopStep: 'panoptes.loop.step',
  missCause: 'panoptes.miss.cause',
  auditFile: 'panoptes.audit.file',
  auditLine: 'panoptes.audit.line',
  auditTrace: 'panoptes.audit.trace',
  /** Violations in the session so far (`panoptes.end_session`, `panoptes.audit`). */
  violationCount: 'panoptes.violation_count',
  errorType: 'error.type',
  // ReAct runs and verification
  responseModel: 'gen_ai.response.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  reactStatus: 'panoptes.react.status',
  reasonCode: 'panoptes.react.reason_code',
  /** The error or limit behind the reason code, redacted. */
  reactDetail: 'panoptes.react.detail',
  iterations: 'panoptes.react.iterations',
  iteration: 'panoptes.react.iteration',
  modelAttempts: 'panoptes.react.model_attempts',
  attempt: 'panoptes.react.attempt',
  costUsd: 'panoptes.react.cost_usd',
  cachedToolCalls: 'panoptes.react.cached_tool_calls',
  cached: 'panoptes.react.cached',
  fallbackUsed: 'panoptes.react.fallback_used',
  criterionId: 'panoptes.criterion.id',
  verificationStatus: 'panoptes.verification.status',
  verificationConfidence: 'panoptes.verification.confidence',
  /** The sources a verdict cites (plain text); the quotes themselves only with `captureContent: true`, as `panoptes.content`. */
  citationSources: 'panoptes.verification.citation_sources',
  criteria: 'panoptes.verification.criteria',
  /** The status of each criterion of a case, in the criteria's order. */
  statuses: 'panoptes.verification.statuses',
  // Judged rubrics
  requestModel: 'gen_ai.request.model',
  judgeRubric: 'panoptes.judge.rubric',
  judgeScope: 'panoptes.judge.scope',
  /** pass, fail, error or skipped. */
  judgeOutcome: 'panoptes.judge.outcome',
  /** What the outcome does: allow, warn, intervene, block, ask or deny. */
  judgeAction: 'panoptes.judge.action',
  judgeScore: 'panoptes.judge.score',
  judgeCached: 'panoptes.judge.cached',
  /** Why a judgment failed: timeout, budget, model, invalid or ungrounded. */
  judgeError: 'panoptes.judge.error',
} as const;

/**
 * Values of `gen_ai.operation.name` on Panoptes' spans: each span's own name (not GenAI operations themselves:
 * Panoptes' own names).
 */
export const OPERATION = SPAN;

/** Metric names: counters, and histograms of durations in seconds. */
export const METRIC = {
  violations: 'panoptes.violations',
  refusals: 'panoptes.refusals',
  interventions: 'panoptes.interventions',
  loops: 'panoptes.loops',
  misses: 'panoptes.misses',
  /** Second model calls asked for after a withheld response (`onViolatingText: 'regenerate'`), by whether that was withheld too. */
  regenerations: 'panoptes.regenerations',
  classificationDuration: 'panoptes.classification.duration',
  guardDuration: 'panoptes.guard.duration',
  loopCheckDuration: 'panoptes.loop_check.duration',
  /** ReAct runs (verification criteria included) that ended or paused, by status and reason code. */
  reactRuns: 'panoptes.react.runs',
  /** Tool calls of ReAct runs, by tool and whether the answer came from the run's cache. */
  reactToolCalls: 'panoptes.react.tool_calls',
  /** Wall time of one invocation of a ReAct graph, in seconds. */
  reactDuration: 'panoptes.react.duration',
  /** Judgments of rubrics, by rubric, outcome, whether the cache answered, and the error's kind. */
  judgments: 'panoptes.judgments',
  /** Time of one judgment (cache hits included), in seconds. */
  judgeDuration: 'panoptes.judge.duration',
} as const;

/** The instrumentation scope: the tracer's and meter's name. */
export const INSTRUMENTATION_SCOPE = 'panoptes';
