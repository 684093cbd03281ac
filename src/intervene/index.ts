export { appendToSystem, applyInterventions, BUILT_IN_STRATEGIES, builtInStrategy, GUIDANCE_HEADER, type ApplyInterventionsOptions, type StrategyLookup, REMINDER_PREFIX, SYSTEM_NOTE_PREFIX, type RenderedIntervention } from './apply.js';
export {
  DEFAULT_DEVIATION_TEMPLATE,
  DEFAULT_DOOMED_TEMPLATE,
  DEFAULT_GUIDANCE_TEMPLATE,
  DEFAULT_MAX_APPLICATIONS,
  DEFAULT_REFUSAL_TEMPLATE,
  initialInterventionState,
  MAX_NOTE_CHARS,
  MAX_PENDING_NOTES,
  planInterventions,
  REFUSAL_NOTES,
  scheduleIntervention,
  scheduleNotes,
  type InterventionPlan,
  type InterventionState,
  type PendingIntervention,
} from './schedule.js';
export { escalate, ESCALATION_ORDER, strategyFromTemplate } from './strategy.js';
export { renderTemplate, TEMPLATE_VARIABLES, templateVariables, type TemplateVariables } from './template.js';
export { defineInterventionStrategy, type InterventionStrategyDef, type InterventionStrategyDefinition, type StrategyIntervention } from './define-strategy.js';
