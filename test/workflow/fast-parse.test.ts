import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument, stringify } from 'yaml';
import { fastParse } from '../../src/workflow/fast-parse.js';
import { parseWorkflow } from '../../src/index.js';

/** What the `yaml` library makes of the text, as the positioned parse runs it. */
function full(text: string): { ok: boolean; data?: unknown } {
  const document = parseDocument(text, { prettyErrors: false, uniqueKeys: true, merge: true, strict: true });
  if (document.errors.length > 0) return { ok: false };
  return { ok: true, data: document.toJS({ maxAliasCount: 100 }) };
}

/** `-0` is -0 to js-yaml and 0 to yaml; no workflow field tells them apart, so the comparison does not either. */
function withoutNegativeZero(value: unknown): unknown {
  if (Object.is(value, -0)) return 0;
  if (Array.isArray(value)) return value.map(withoutNegativeZero);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutNegativeZero(item)]));
  return value;
}

const key = fc.oneof(fc.constantFrom('name', 'states', 'initial', 'to', 'from', 'patterns', 'tool_calls', '__proto__', 'yes', '1', 'null'), fc.string({ maxLength: 8 }));
const scalar = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom('true', 'False', 'yes', 'no', '~', 'null', '0x1F', '0o17', '017', '1_000', '.inf', '-.Inf', '.NaN', '1e3', '2024-01-01', 'a: b', '- x', '#c', "it's", '"q"', '\\\\bhello\\\\b', 'tell me more.*'),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(key, tie('node'), { maxKeys: 4 })),
})).node;

describe('fastParse (js-yaml) against the positioned parse (yaml)', () => {
  it('reads what it accepts exactly as yaml does, in block and flow styles', () => {
    fc.assert(
      fc.property(fc.dictionary(key, value, { minKeys: 1, maxKeys: 5 }), fc.constantFrom('block', 'flow'), (document, style) => {
        const text = stringify(document, style === 'flow' ? { collectionStyle: 'flow' } : {});
        const fast = fastParse(text);
        if (!fast) return;
        const reference = full(text);
        expect(reference.ok).toBe(true);
        expect(withoutNegativeZero(fast.data)).toEqual(withoutNegativeZero(reference.data));
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['anchors and aliases', 'a: &x [1]\nb: *x\n'],
    ['merge keys', 'a: { b: 1 }\n<<: { c: 2 }\n'],
    ['tags', 'a: !!str 1\n'],
    ['directives', '%YAML 1.2\n---\na: 1\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a syntax error', 'a: [1, 2\n'],
    ['a numeric version', 'name: x\nversion: 1.0\n'],
    ['two documents', 'a: 1\n---\nb: 2\n'],
  ])('leaves text with %s to the positioned parse', (_name, text) => {
    expect(fastParse(text)).toBeUndefined();
  });

  it('keeps positions for findings of a workflow it read: a lint warning still names its line', () => {
    const workflow = parseWorkflow('name: w\nstates:\n  - { name: a, initial: true }\n  - { name: b }\ntransitions:\n  - { from: a, to: a }\n', { source: 'w.yaml' });
    expect(workflow.positionOf('states[1]')).toEqual({ line: 4, column: 5 });
    expect(workflow.positionOf('states[1].name')).toEqual({ line: 4, column: 13 });
  });
});
