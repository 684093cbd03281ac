import { dirname, resolve } from 'node:path';
import { isNode, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import type { Diagnostic } from '../diagnostics/index.js';
import { yamlErrors } from '../workflow/parse.js';
import type { Scenario } from './types.js';

const VERDICTS = ['satisfied', 'violated', 'pending'] as const;
const scalar = z.union([z.string(), z.number(), z.boolean()]);
const fixture = z.strictObject({ args: z.record(z.string(), z.unknown()).optional(), result: z.unknown() });

/** The scenario file's shape; keys are snake_case like the workflow's. Unknown keys are errors (a typo checks nothing). */
const scenarioSchema = z.strictObject({
  name: z.string().min(1).optional(),
  workflow: z.string().min(1).optional(),
  rules: z
    .strictObject({
      file: z.string().min(1),
      context: z.record(z.string(), scalar).default({}),
      confirm: z.array(z.string()).default([]),
      fixtures: z.record(z.string(), z.union([fixture, z.array(fixture)])).default({}),
      now: z.iso.datetime({ offset: true, local: true }).optional(),
    })
    .optional(),
  conversation: z.array(z.unknown()).optional(),
  transcript: z.union([z.string().min(1), z.strictObject({ file: z.string().min(1), session: z.union([z.string(), z.number()]).optional() })]).optional(),
  expect: z.strictObject({
    verdicts: z.record(z.string(), z.enum(VERDICTS)).optional(),
    violations: z.array(z.string()).optional(),
    refused: z.array(z.string()).optional(),
    loops: z.union([z.number().int().nonnegative(), z.array(z.string())]).optional(),
    final_state: z.string().optional(),
    trace: z.array(z.string()).optional(),
    interventions: z.array(z.string()).optional(),
  }),
});

/**
 * Parses one scenario file (YAML). Never throws: a file that is not YAML or not a scenario gives diagnostics with
 * the line and column of the offending field. Paths in the file (`workflow`, `rules.file`, `transcript`) are resolved
 * against the file's folder.
 * @example
 * const { scenario, diagnostics } = parseScenario(await readFile('refund.yaml', 'utf8'), { file: 'scenarios/refund.yaml' });
 */
export function parseScenario(text: string, { file }: { file: string }): { scenario?: Scenario; diagnostics: Diagnostic[] } {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  const at = (offset: number | undefined) => {
    if (offset === undefined) return {};
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  if (document.errors.length > 0) {
    return { diagnostics: yamlErrors(text, document.errors, lineCounter).map((error) => ({ severity: 'error', ...error, path: '', source: file })) };
  }
  const parsed = scenarioSchema.safeParse(document.toJS());
  if (!parsed.success) {
    const diagnostics: Diagnostic[] = parsed.error.issues.map((issue) => {
      const path = issue.path.map(String);
      const unknownKey = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
      const node = document.getIn(unknownKey === undefined ? path : [...path, unknownKey], true);
      return {
        severity: 'error',
        code: 'invalid-scenario',
        message: issue.message,
        path: formatPath(unknownKey === undefined ? path : [...path, unknownKey]),
        source: file,
        ...at(isNode(node) ? node.range?.[0] : offsetOf(document, path)),
        hint: 'a scenario has `expect:` with any of verdicts, violations, refused, loops, final_state, trace, interventions, and a `conversation:` or a `transcript:`',
      };
    });
    return { diagnostics };
  }
  const value = parsed.data;
  const folder = dirname(file);
  const base = file.split(/[\\/]/).pop()!.replace(/\.ya?ml$/i, '');
  if (value.conversation === undefined && value.transcript === undefined) {
    return { diagnostics: [{ severity: 'error', code: 'invalid-scenario', message: 'the scenario has neither `conversation:` nor `transcript:`', path: '', source: file, hint: 'add the messages under `conversation:`, or `transcript: recorded.json`' }] };
  }
  const transcript = typeof value.transcript === 'string' ? { file: value.transcript } : value.transcript;
  const scenario: Scenario = {
    name: value.name ?? base,
    file,
    ...(value.workflow === undefined ? {} : { workflow: resolve(folder, value.workflow) }),
    ...(value.rules === undefined
      ? {}
      : {
          rules: {
            file: resolve(folder, value.rules.file),
            context: value.rules.context,
            confirm: value.rules.confirm,
            fixtures: Object.fromEntries(Object.entries(value.rules.fixtures).map(([tool, entries]) => [tool, Array.isArray(entries) ? entries : [entries]])),
            ...(value.rules.now === undefined ? {} : { now: Date.parse(value.rules.now) }),
          },
        }),
    ...(value.conversation === undefined ? {} : { conversation: value.conversation }),
    ...(transcript === undefined ? {} : { transcript: { file: resolve(folder, transcript.file), ...(transcript.session === undefined ? {} : { session: String(transcript.session) }) } }),
    expect: {
      ...(value.expect.verdicts && { verdicts: value.expect.verdicts }),
      ...(value.expect.violations && { violations: value.expect.violations }),
      ...(value.expect.refused && { refused: value.expect.refused }),
      ...(value.expect.loops !== undefined && { loops: value.expect.loops }),
      ...(value.expect.final_state !== undefined && { finalState: value.expect.final_state }),
      ...(value.expect.trace && { trace: value.expect.trace }),
      ...(value.expect.interventions && { interventions: value.expect.interventions }),
    },
  };
  return { scenario, diagnostics: [] };
}

function formatPath(path: readonly string[]): string {
  return path.map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`)).join('');
}

/** The nearest existing ancestor's offset, for a missing field. */
function offsetOf(document: Document, path: readonly string[]): number | undefined {
  for (let length = path.length - 1; length >= 0; length--) {
    const node = length === 0 ? document.contents : document.getIn(path.slice(0, length), true);
    if (isNode(node) && node.range) return node.range[0];
  }
  return undefined;
}
