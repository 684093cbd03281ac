import { Document, isMap, isScalar, visit, type YAMLMap } from 'yaml';
import type { Diagnostic } from '../diagnostics/index.js';
import { validateRubrics } from '../judge/load.js';
import type { Rubric } from '../judge/rubric.js';
import type { ToolSpec } from '../rules/index.js';
import { DEFAULT_MAX_BYTES } from '../limits/index.js';
import { parseYamlText } from '../workflow/parse.js';
import { compileDraft, type CompileOptions, type CompileOutcome } from './compile-draft.js';
import { rubricDraftSchema, type RubricDraft } from './draft.js';
import { RUBRIC_SYSTEM_PROMPT } from './prompt.js';
import { quoteOccurs } from './quotes.js';
import type { SourceFlag } from './render-workflow.js';

/** The rubric schema as `npm install panoptes` installs it, for a rubric file written at the project's root. */
export const DEFAULT_RUBRIC_SCHEMA_REFERENCE = './node_modules/panoptes/rubric.schema.json';

/** Options of {@link compileRubrics}. `source` defaults to `'policy.rubrics.yaml'`. */
export interface CompileRubricsOptions extends CompileOptions {
  /** The agent's tools: named in the prompt; a `tool_call` rubric that applies to any other tool is an error. */
  tools?: readonly ToolSpec[];
  /** The editor's `$schema` reference on the file's first line, relative to where the file is written. */
  schema?: string;
}

/** What the rubric compiler produced. */
export interface CompiledRubrics extends CompileOutcome {
  /** The rubric file, commented (`# source:` above each rubric and criterion), ready to write. */
  yaml: string;
  rubrics: Rubric[];
  /** Rubrics and criteria whose `source` is not a quote of the policy. */
  unquoted: SourceFlag[];
}

/**
 * Drafts rubrics (policies an LLM judge checks) from a written policy with a model, validates the file as
 * `loadRubrics` does, and sends the positioned errors back for repair, at most `maxRepairs` times, like
 * `compileWorkflow`. Every rubric and criterion is written under a `# source:` comment quoting the policy; a quote the
 * policy does not hold is flagged (`# CHECK` and a `source-not-in-policy` warning), not repaired.
 * @throws {CompileError} when the last round is still invalid (with its diagnostics), or a model call fails.
 * @throws {InvalidOptionError} for an empty policy, a missing model or a bad `maxRepairs`.
 * @example
 * const { yaml } = await compileRubrics(await readFile('policy.md', 'utf8'), { model: compilerModel(chatModel) });
 * await writeFile('policy.rubrics.yaml', yaml);
 */
export async function compileRubrics(policyText: string, options: CompileRubricsOptions): Promise<CompiledRubrics> {
  const { tools, source = 'policy.rubrics.yaml', header = [], schema = DEFAULT_RUBRIC_SCHEMA_REFERENCE } = options;
  const toolNames = tools ? new Set(tools.map((tool) => (typeof tool === 'string' ? tool : tool.name))) : undefined;
  const { result, text, rounds, usage, prompt } = await compileDraft(policyText, options, {
    what: 'rubric file',
    systemPrompt: RUBRIC_SYSTEM_PROMPT,
    schema: rubricDraftSchema,
    tools,
    check: (draft: RubricDraft, policy) => {
      const unquoted = unquotedItems(draft, (quote) => quoteOccurs(quote, policy));
      const yaml = renderRubricYaml(draft, { flagged: unquoted, header, schema });
      const validated = validateRubrics(yaml, { source });
      const place = positionsOf(yaml);
      const diagnostics = [...validated.diagnostics, ...emptyDraft(draft, source), ...unknownTools(draft, toolNames, source, place), ...quoteWarnings(unquoted, source, place)];
      const ok = validated.rubrics !== undefined && !diagnostics.some((diagnostic) => diagnostic.severity === 'error');
      return { text: yaml, diagnostics, ...(ok ? { result: { rubrics: validated.rubrics!, unquoted, diagnostics } } : {}) };
    },
  });
  return { yaml: text, rubrics: result.rubrics, rounds, diagnostics: result.diagnostics, unquoted: result.unquoted, usage, prompt };
}

/**
 * Writes a draft as a rubric file a reviewer can check line by line: the editor's schema line, a header, and each
 * rubric and criterion under its `# source:` quote (with `# CHECK` when the policy does not hold the quote).
 */
export function renderRubricYaml(draft: RubricDraft, { flagged = [], header = [], schema = DEFAULT_RUBRIC_SCHEMA_REFERENCE }: { flagged?: readonly SourceFlag[]; header?: readonly string[]; schema?: string } = {}): string {
  const document = new Document({
    rubrics: draft.rubrics.map(({ source: _source, criteria, applies_to, tool_results, every_turns, ...rubric }) => ({
      id: rubric.id,
      description: rubric.description,
      scope: rubric.scope,
      ...(applies_to && Object.values(applies_to).some((names) => names !== undefined) ? { applies_to } : {}),
      criteria: criteria.map(({ source: _criterionSource, anchors, weight, fail_below, ...criterion }) => ({
        ...criterion,
        ...(weight === undefined ? {} : { weight }),
        ...(fail_below === undefined ? {} : { fail_below }),
        // A map with number keys, so the scores are written as people write them (`1: rude`, not `"1": rude`).
        ...(anchors?.length ? { anchors: new Map(anchors.map(({ score, text }) => [score, text])) } : {}),
      })),
      pass_at: rubric.pass_at,
      on_fail: rubric.on_fail,
      on_error: rubric.on_error,
      ...(tool_results === undefined ? {} : { tool_results }),
      ...(every_turns === undefined ? {} : { every_turns }),
    })),
  });
  // Lists of names on one line (`tools: [send_email]`), as people write them.
  visit(document, { Seq: (_, node) => void (node.items.length > 0 && node.items.every((item) => isScalar(item)) && (node.flow = true)) });
  const flaggedPaths = new Set(flagged.map((flag) => flag.path));
  draft.rubrics.forEach((rubric, index) => {
    comment(document.getIn(['rubrics', index], true), rubric.source, flaggedPaths.has(`rubrics[${index}]`));
    rubric.criteria.forEach((criterion, at) => comment(document.getIn(['rubrics', index, 'criteria', at], true), criterion.source, flaggedPaths.has(`rubrics[${index}].criteria[${at}]`)));
  });
  document.commentBefore = [`yaml-language-server: $schema=${schema}`, ...header].map((line) => ` ${line}`).join('\n');
  return document.toString({ lineWidth: 0 });
}

function comment(node: unknown, source: string, flagged: boolean): void {
  if (!isMap(node)) return;
  const lines = [` source: ${JSON.stringify(source.replace(/\s+/g, ' '))}`, ...(flagged ? [' CHECK: this source is not a quote of the policy'] : [])];
  (node as YAMLMap).commentBefore = lines.join('\n');
}

function unquotedItems(draft: RubricDraft, occurs: (quote: string) => boolean): SourceFlag[] {
  return draft.rubrics.flatMap((rubric, index) => [
    ...(occurs(rubric.source) ? [] : [{ path: `rubrics[${index}]`, source: rubric.source }]),
    ...rubric.criteria.flatMap((criterion, at) => (occurs(criterion.source) ? [] : [{ path: `rubrics[${index}].criteria[${at}]`, source: criterion.source }])),
  ]);
}

type Place = (path: Array<string | number>) => { line?: number; column?: number };

function positionsOf(yaml: string): Place {
  const parsed = parseYamlText(yaml, DEFAULT_MAX_BYTES, 'rubric file');
  return (path) => {
    const position = 'positions' in parsed ? parsed.positions?.find(path, 'value') : undefined;
    return position ? { line: position.line, column: position.column } : {};
  };
}

function emptyDraft(draft: RubricDraft, source: string): Diagnostic[] {
  if (draft.rubrics.length > 0) return [];
  return [{ severity: 'error', code: 'no-rubrics', path: 'rubrics', message: 'the draft has no rubric', hint: 'write at least one rubric for what the policy asks a judge to check', source }];
}

function unknownTools(draft: RubricDraft, known: ReadonlySet<string> | undefined, source: string, place: Place): Diagnostic[] {
  if (!known) return [];
  return draft.rubrics.flatMap((rubric, index) =>
    (rubric.applies_to?.tools ?? []).flatMap((tool, at) =>
      known.has(tool)
        ? []
        : [
            {
              severity: 'error' as const,
              code: 'unknown-tool',
              path: `rubrics[${index}].applies_to.tools[${at}]`,
              message: `rubric '${rubric.id}' applies to tool '${tool}', which the agent does not have`,
              hint: `the agent's tools: ${[...known].join(', ')}`,
              source,
              ...place(['rubrics', index, 'applies_to', 'tools', at]),
            },
          ],
    ),
  );
}

function quoteWarnings(flags: readonly SourceFlag[], source: string, place: Place): Diagnostic[] {
  return flags.map(({ path, source: quote }) => ({
    severity: 'warning',
    code: 'source-not-in-policy',
    path: `${path}.source`,
    message: `the source ${JSON.stringify(quote.length > 80 ? `${quote.slice(0, 77)}...` : quote)} is not a quote of the policy`,
    hint: 'check this item against the policy by hand',
    source,
    ...place(path.split(/[.[\]]/).filter((part) => part !== '').map((part) => (/^\d+$/.test(part) ? Number(part) : part))),
  }));
}
