import * as z from 'zod';
import { didYouMean } from '../diagnostics/index.js';
import { listNames } from './findings.js';

/** Options of `closedObject`. */
export interface ClosedObjectOptions {
  /** Alternative spellings by canonical key (`{ to_state: ['target', 'to'] }`); both spellings at once is an error. */
  aliases?: Readonly<Record<string, readonly string[]>>;
  /** Canonical keys of alias groups one spelling of which must be present. */
  required?: readonly string[];
  /**
   * Shown by editors. Given here because `.describe()` returns a copy that the JSON Schema override would not
   * recognise as closed.
   */
  description?: string;
}

/** Every closed object and its options, so the JSON Schema can say `additionalProperties: false` and `anyOf`. */
const closedObjects = new WeakMap<z.ZodType, ClosedObjectOptions>();

/**
 * An object schema that rejects unknown keys with a did-you-mean against its own keys, and understands aliased
 * spellings. Zod's `strictObject` reports all unknown keys in one issue at the object and cannot suggest a name,
 * so this one checks the keys itself and reports each at its own path. The check runs even when a property failed
 * (`when`), so one pass reports every mistake in an object.
 */
export function closedObject<Shape extends z.ZodRawShape>(shape: Shape, options: ClosedObjectOptions = {}) {
  const known = Object.keys(shape);
  const { aliases = {}, required = [], description } = options;
  const object = z.looseObject(shape);
  const schema = (description === undefined ? object : object.describe(description)).superRefine(
    (value, context) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
      const present = new Set(Object.keys(value));
      for (const key of present) {
        if (known.includes(key)) continue;
        const suggestion = didYouMean(key, known);
        context.addIssue({
          code: 'custom',
          path: [key],
          input: (value as Record<string, unknown>)[key],
          message: `unknown key '${key}'`,
          params: { code: 'unknown-key', at: 'key', hint: suggestion || `known keys: ${listNames(known)}` },
        });
      }
      for (const [canonical, others] of Object.entries(aliases)) {
        const spellings = [canonical, ...others].filter((key) => present.has(key));
        if (spellings.length > 1) {
          context.addIssue({
            code: 'custom',
            path: [spellings[1]!],
            message: `'${spellings[0]}' and '${spellings[1]}' are two spellings of the same key`,
            params: { code: 'duplicate-key', at: 'key', hint: `keep one of ${spellings.map((key) => `'${key}'`).join(', ')}` },
          });
        } else if (spellings.length === 0 && required.includes(canonical)) {
          context.addIssue({
            code: 'custom',
            path: [canonical],
            message: `missing required key '${canonical}'`,
            params: { code: 'missing-key', hint: `also spelled ${others.map((key) => `'${key}'`).join(' or ')}` },
          });
        }
      }
    },
    { when: () => true },
  );
  closedObjects.set(schema, options);
  return schema;
}

/**
 * `z.toJSONSchema` override: closed objects get `additionalProperties: false`, and required alias groups an `anyOf`
 * of their spellings, so editors flag the same mistakes the loader does.
 */
export function closeJsonSchemaObject(context: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const options = closedObjects.get(context.zodSchema as z.ZodType);
  if (options === undefined) return;
  context.jsonSchema.additionalProperties = false;
  const groups = (options.required ?? []).map((canonical) => [canonical, ...(options.aliases?.[canonical] ?? [])]);
  if (groups.length === 0) return;
  const anyOfs = groups.map((spellings) => ({ anyOf: spellings.map((key) => ({ required: [key] })) }));
  if (anyOfs.length === 1) Object.assign(context.jsonSchema, anyOfs[0]);
  else context.jsonSchema.allOf = anyOfs;
}
