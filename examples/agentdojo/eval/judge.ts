/**
 * The model judge of the eval (`--judge`): the rulebases' `judged(...)` conditions, answered by the rubric in
 * `request-covers-action.rubrics.yaml` (the user's requests and the call, no tool output). The sentinel asks it only
 * where a clause's deterministic conditions left the decision open, so every ask here is one the rules could not settle.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createJudge, emptyCassette, judgeCondition, loadRubrics, recordedJudge, type Cassette, type ChatMessage, type ConditionJudge, type Judge, type JudgeModel } from 'panoptes';

/** Where the judge's answers come from: a live model, or something that only tests the plumbing. */
export interface EvalJudgeSource {
  model: JudgeModel;
  /** Only a live model's figures are reported: a scripted or recorded judge measures the plumbing, not a model. */
  live: boolean;
  /** For the report: `openai:gpt-4o-mini`, `cassette judge.cassette.json`, `scripted`. */
  label: string;
}

/** What `--judge` names: a `.json` cassette (replayed strictly; a miss is held for the user), else `provider:model`. */
export async function judgeSource(spec: string): Promise<EvalJudgeSource> {
  if (spec.endsWith('.json')) {
    const cassette = JSON.parse(readFileSync(spec, 'utf8')) as Partial<Cassette>;
    if (typeof cassette.modelId !== 'string' || typeof cassette.entries !== 'object' || cassette.entries === null) throw new Error(`${spec}: not a cassette: expected { "modelId", "entries" } (written by \`panoptes judge record\`)`);
    return { model: recordedJudge(cassette as Cassette), live: false, label: `cassette ${spec}` };
  }
  if (!/^[\w-]+:[\w.:/-]+$/.test(spec)) throw new Error(`--judge ${spec}: write a model as provider:name (e.g. openai:gpt-4o-mini) or give a cassette (.json)`);
  // Loaded only for a live run: langchain and the provider's package are needed then, and only then.
  const { judgeModel } = await import('panoptes/langchain');
  return { model: judgeModel(spec, { modelId: spec }), live: true, label: spec };
}

/**
 * A live source that also records every answer into a cassette (kept answers are replayed, not asked again), so a
 * later `--judge <cassette>` replays the run offline. `save()` writes the cassette.
 */
export function recording(source: EvalJudgeSource, file: string): EvalJudgeSource & { save: () => void } {
  if (!source.live) throw new Error('--record needs a live --judge provider:model: a cassette or a scripted judge has nothing new to record');
  const cassette: Cassette = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Cassette) : emptyCassette(source.model.modelId ?? source.label);
  return { ...source, model: recordedJudge(cassette, { strict: false, fallback: source.model }), save: () => writeFileSync(file, `${JSON.stringify(cassette, null, 2)}\n`) };
}

/**
 * The eval's judge over the shipped rubric: one cache for every trust variant (the same question is asked once). Its
 * timeout stays inside the sentinel's 10 s bound on a judge, so a slow model is the judge's counted timeout (then
 * `on_error: ask`), not a silent cut by the sentinel.
 */
export async function evalJudge(source: EvalJudgeSource, rubricsPath: string, { timeoutMs = 9_000, concurrency = 4 }: { timeoutMs?: number; concurrency?: number } = {}): Promise<Judge> {
  const rubrics = await loadRubrics(rubricsPath);
  return createJudge({ model: source.model, rubrics, timeoutMs, concurrency, logger: { warn: (line: string) => console.error(line) } });
}

/**
 * The sentinel's judge for one replayed run: a `judged(Name)` condition goes to the rubric whose id is `Name` or whose
 * `applies_to.rules` lists it, judged on the call and the conversation so far; a name no rubric takes is `no`.
 * `asks` counts the conditions the rules left open.
 */
export function ruleJudge(judge: Judge, messages: () => readonly ChatMessage[], counter: { asks: number }): ConditionJudge {
  const condition = judgeCondition(judge, { logger: { warn: (line: string) => console.error(line) } });
  const rubricFor = (name: string) => judge.rubric(name)?.id ?? judge.rubrics.find((rubric) => rubric.appliesTo.rules?.includes(name))?.id ?? name;
  return async ({ name, tool, args }) => {
    counter.asks++;
    const answer = await condition(rubricFor(name), { call: { name: tool, args: { ...args } }, messages: messages(), rule: name });
    return answer === true ? 'yes' : answer === false ? 'no' : 'unknown';
  };
}
