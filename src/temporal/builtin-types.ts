import * as z from 'zod';
import { defineConstraintType, type ConstraintTypeDef } from './custom.js';
import { evaluateConstraint } from './evaluate.js';
import { describeViolation } from './messages.js';
import { closeMonitor, compileConstraint, initialMonitorState, stepMonitor, type CompiledConstraint } from './monitor.js';
import { selectorNames } from './selector.js';
import { CONSTRAINT_PARAMETERS, CONSTRAINT_TYPES, EACH_TYPES, type ConstraintType, type MonitorState, type StateSelector, type TemporalConstraint } from './types.js';

/** The options of a built-in type: the constraint's own selector keys. */
export interface BuiltInOptions {
  trigger?: StateSelector;
  target?: StateSelector;
  condition?: StateSelector;
  each?: boolean;
}

const selector = z.union([z.string(), z.array(z.string())]);

/**
 * The seven built-in types as registry entries, made by `defineConstraintType` like any other. Their `evaluate` is
 * the incremental monitor (`stepMonitor`, `closeMonitor`) and their `reference` the oracle (`evaluateConstraint`),
 * so `checkConstraintType` runs the same property test on them as on a registered type. The workflow monitor
 * compiles them with `compileConstraint`, which the anticipation searches also read.
 */
export const BUILT_IN_CONSTRAINT_TYPES: Readonly<Record<ConstraintType, ConstraintTypeDef<BuiltInOptions, MonitorState>>> = Object.freeze(
  Object.fromEntries(CONSTRAINT_TYPES.map((type) => [type, builtIn(type)])) as Record<ConstraintType, ConstraintTypeDef<BuiltInOptions, MonitorState>>,
);

function builtIn(type: ConstraintType): ConstraintTypeDef<BuiltInOptions, MonitorState> {
  const { required, optional } = CONSTRAINT_PARAMETERS[type];
  const shape: Record<string, z.ZodType> = {};
  for (const parameter of [...required, ...optional]) shape[parameter] = required.includes(parameter) ? selector : selector.optional();
  if (EACH_TYPES.includes(type)) shape.each = z.boolean().optional();
  // One compiled monitor per options object: `evaluate` is called with the same options for a whole trace.
  const compiled = new WeakMap<BuiltInOptions, CompiledConstraint>();
  const compile = (options: BuiltInOptions) => {
    let found = compiled.get(options);
    if (!found) compiled.set(options, (found = compileConstraint(asConstraint(type, options))));
    return found;
  };
  return defineConstraintType<BuiltInOptions, MonitorState>({
    name: type,
    schema: z.strictObject(shape) as unknown as z.ZodType<BuiltInOptions>,
    evaluate: {
      start: (options) => initialMonitorState(compile(options)),
      step: (memory, state, options) => {
        const next = stepMonitor(compile(options), memory, state);
        return { verdict: next.verdict, memory: next };
      },
      close: (memory, options) => closeMonitor(compile(options), memory).verdict as 'satisfied' | 'violated',
    },
    describe: (options, violation) => describeViolation(compile(options), { verdict: 'violated', steps: violation.step, closed: violation.atClose, violation }),
    states: (options) => [options.trigger, options.target, options.condition].flatMap((found) => (found === undefined ? [] : selectorNames(found))),
    reference: (trace, options, { closed }) => evaluateConstraint(asConstraint(type, options), trace, { closed }),
  });
}

function asConstraint(type: ConstraintType, { trigger, target, condition, each }: BuiltInOptions): TemporalConstraint {
  return { name: type, type, ...(trigger === undefined ? {} : { trigger }), ...(target === undefined ? {} : { target }), ...(condition === undefined ? {} : { condition }), ...(each ? { each } : {}) };
}
