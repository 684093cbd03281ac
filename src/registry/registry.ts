import type { ClassificationTier } from '../classify/tier.js';
import { InvalidOptionError } from '../errors/index.js';
import { BUILT_IN_STRATEGIES } from '../intervene/apply.js';
import type { InterventionStrategyDef } from '../intervene/define-strategy.js';
import { BUILT_IN_CONSTRAINT_TYPES } from '../temporal/builtin-types.js';
import type { ConstraintTypeDef } from '../temporal/custom.js';

/** Anything a registry holds: what `defineConstraintType`, `defineInterventionStrategy` and `defineClassificationTier` make. */
export type Extension = ConstraintTypeDef<any, any> | InterventionStrategyDef<any> | ClassificationTier;

/**
 * The constraint types, intervention strategies and classification tiers a workflow may name. The built-ins are in
 * every registry and cannot be replaced. Give one to `loadWorkflow({ registry })` and `createMonitor({ registry })`;
 * without one, both use `defaultRegistry`, the process-wide one.
 */
export interface Registry {
  /**
   * Adds extensions. Registering the same object twice is a no-op (a module imported twice); another one under a
   * name already taken throws.
   * @throws {InvalidOptionError} for a name already taken, a built-in's name, or something not made by a `define*`.
   */
  register(...extensions: Extension[]): this;
  /** The constraint type of that name (built-in or registered), or `undefined`. */
  constraintType(name: string): ConstraintTypeDef<any, any> | undefined;
  /** Every constraint type's name: the built-ins, then the registered ones in order. */
  constraintTypeNames(): string[];
  /** Whether `name` is one of the seven built-in constraint types. */
  isBuiltInConstraintType(name: string): boolean;
  /** The intervention strategy of that name (built-in or registered), or `undefined`. */
  strategy(name: string): InterventionStrategyDef<any> | undefined;
  /** Every strategy's name: the built-ins, then the registered ones. */
  strategyNames(): string[];
  /** Whether `name` is one of the four built-in strategies. */
  isBuiltInStrategy(name: string): boolean;
  /** The registered classification tiers, in order (the cascade asks them in this order). */
  tiers(): readonly ClassificationTier[];
}

const KINDS = ['constraint-type', 'intervention-strategy', 'classification-tier'];

/**
 * A registry of its own, holding the built-ins and whatever `extensions` are given (and, with `extends`, what that
 * registry holds now). Tests use one each, so nothing they register leaks into another.
 * @example
 * const registry = createRegistry().register(maxCount);
 * const workflow = await loadWorkflow('support.yaml', { registry });
 */
export function createRegistry({ extensions = [], extends: parent }: { extensions?: readonly Extension[]; extends?: Registry } = {}): Registry {
  const types = new Map<string, ConstraintTypeDef<any, any>>();
  const strategies = new Map<string, InterventionStrategyDef<any>>();
  const tiers: ClassificationTier[] = [];
  const builtInType = (name: string) => (Object.hasOwn(BUILT_IN_CONSTRAINT_TYPES, name) ? BUILT_IN_CONSTRAINT_TYPES[name as keyof typeof BUILT_IN_CONSTRAINT_TYPES] : undefined);
  const builtInStrategy = (name: string) => (Object.hasOwn(BUILT_IN_STRATEGIES, name) ? BUILT_IN_STRATEGIES[name as keyof typeof BUILT_IN_STRATEGIES] : undefined);

  const registry: Registry = {
    register(...extensions) {
      for (const extension of extensions) add(extension);
      return this;
    },
    constraintType: (name) => builtInType(name) ?? types.get(name),
    constraintTypeNames: () => [...Object.keys(BUILT_IN_CONSTRAINT_TYPES), ...types.keys()],
    isBuiltInConstraintType: (name) => builtInType(name) !== undefined,
    strategy: (name) => builtInStrategy(name) ?? strategies.get(name),
    strategyNames: () => [...Object.keys(BUILT_IN_STRATEGIES), ...strategies.keys()],
    isBuiltInStrategy: (name) => builtInStrategy(name) !== undefined,
    tiers: () => [...tiers],
  };

  function add(extension: Extension): void {
    const kind = (extension as { kind?: unknown } | null)?.kind;
    if (typeof kind !== 'string' || !KINDS.includes(kind)) {
      throw new InvalidOptionError({ parameter: 'extension', value: extension, fix: 'Register what defineConstraintType, defineInterventionStrategy or defineClassificationTier returned.' });
    }
    const ext = extension as any; // narrowed by `kind` below
    if (kind === 'classification-tier') {
      if (tiers.includes(ext)) return;
      if (tiers.some((tier) => tier.name === ext.name)) throw taken('classification tier', ext.name);
      tiers.push(ext);
      return;
    }
    const [map, builtIn, what] = kind === 'constraint-type' ? ([types, builtInType, 'constraint type'] as const) : ([strategies, builtInStrategy, 'intervention strategy'] as const);
    if (builtIn(ext.name)) throw new InvalidOptionError({ parameter: 'name', value: ext.name, fix: `'${ext.name}' is a built-in ${what}; give yours another name.` });
    const existing = map.get(ext.name);
    if (existing === ext) return;
    if (existing) throw taken(what, ext.name);
    map.set(ext.name, ext);
  }

  if (parent) {
    for (const name of parent.constraintTypeNames()) if (!parent.isBuiltInConstraintType(name)) add(parent.constraintType(name)!);
    for (const name of parent.strategyNames()) if (!builtInStrategy(name)) add(parent.strategy(name)!);
    for (const tier of parent.tiers()) add(tier);
  }
  for (const extension of extensions) add(extension);
  return registry;
}

function taken(what: string, name: string): InvalidOptionError {
  return new InvalidOptionError({ parameter: 'name', value: name, fix: `A different ${what} named '${name}' is already registered; rename one of them, or use a registry of your own (createRegistry()).` });
}

// One per process even when two copies of the package are loaded (a CLI and the module it imports).
const GLOBAL_KEY = Symbol.for('panoptes.registry');

/**
 * The process-wide registry: what `loadWorkflow`, `createMonitor` and `panoptes validate` use when given none. A
 * module that registers its types here on import is enough for `panoptes validate --module`.
 */
export const defaultRegistry: Registry = ((globalThis as Record<symbol, unknown>)[GLOBAL_KEY] as Registry | undefined) ?? ((globalThis as Record<symbol, unknown>)[GLOBAL_KEY] = createRegistry()) as Registry;

/**
 * Whether a value is a registry (from this copy of the package or another): what a module given to
 * `panoptes validate --module` may export as `registry`.
 */
export function isRegistry(value: unknown): value is Registry {
  const candidate = value as Partial<Registry> | null;
  return typeof candidate?.register === 'function' && typeof candidate.constraintType === 'function' && typeof candidate.strategy === 'function' && typeof candidate.tiers === 'function';
}

/**
 * The extensions a module exports (as named exports or a `default` array), for `panoptes validate --module`.
 */
export function extensionsOf(module: Record<string, unknown>): Extension[] {
  const values = Object.values(module).flatMap((value) => (Array.isArray(value) ? value : [value]));
  return values.filter((value): value is Extension => KINDS.includes((value as { kind?: unknown } | null)?.kind as string));
}
