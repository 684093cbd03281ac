/**
 * `npm run example:verify`: a verifier of prior-authorization requests against a coverage policy, built with
 * `createVerificationGraph`, with the workflow monitor and the loop detector plugged in.
 *
 * Four cases (met, not met, missing evidence, one that makes a naive model search in circles) are checked against
 * the three criteria of `policy.md`. Each result prints with its verified citations and a short trace. Offline by
 * default: the model is a scripted `fakeModel()` that reads its request (see `scripted-verifier.ts`); its first call
 * fails with a 429, which LangGraph's retry policy retries. With `OPENAI_API_KEY` set, `gpt-4o-mini` verifies
 * instead, and what it concludes is up to it. The verifier itself is made in `create-verifier.ts` (`langgraph.json` serves it);
 * a model that fails for good hands over to the rules of `rule-fallback.ts`. It imports `panoptes` and
 * `panoptes/langgraph` as your project would.
 */
import { readFileSync } from 'node:fs';
import { MemorySaver } from '@langchain/langgraph';
import pc from 'picocolors';
import { verifyCase, type CriterionResult } from 'panoptes/langgraph';
import { chatModel, createVerifier } from './create-verifier.js';

const here = (path: string) => new URL(path, import.meta.url);
const criteria = JSON.parse(readFileSync(here('./criteria.json'), 'utf8')) as Array<{ id: string; text: string }>;
const cases = ['met', 'not-met', 'missing-evidence', 'looping'];

const { model, name } = await chatModel();
const verifier = await createVerifier({ model, checkpointer: new MemorySaver() });

console.log(pc.bold(`Verifying ${cases.length} cases against ${criteria.length} criteria with ${name}\n`));
for (const file of cases) {
  const caseBundle = JSON.parse(readFileSync(here(`./cases/${file}.json`), 'utf8')) as Record<string, unknown>;
  console.log(pc.bold(`case ${file} (${String(caseBundle.member_id)})`));
  for (const result of await verifyCase(verifier, caseBundle, criteria, { concurrency: 3 })) print(result);
  console.log('');
}

function print(result: CriterionResult) {
  const colour = result.status === 'met' ? pc.green : result.status === 'not_met' ? pc.red : pc.yellow;
  const why = result.reasonCode ? ` (${result.reasonCode})` : '';
  console.log(`  ${result.criterionId.padEnd(18)} ${colour(result.status)}${why}  confidence ${result.confidence}`);
  for (const citation of result.citations) console.log(`    cites ${citation.source} ${citation.section ?? ''}: "${citation.quote}"`);
  for (const citation of result.rejectedCitations) console.log(`    ${pc.red('rejected')} ${citation.source}: "${citation.quote}" (${citation.reason})`);
  if (result.rationale) console.log(`    ${pc.dim(result.rationale)}`);
  if (result.detail) console.log(`    ${pc.dim(result.detail)}`);
  const steps = result.trace.map((step) => `${step.action ?? 'no tool'}${step.cached ? ' (cached)' : ''}${step.error ? ' (refused or failed)' : ''}`);
  console.log(`    ${pc.dim(`trace: ${steps.join(' -> ')}`)}`);
  console.log(`    ${pc.dim(`usage: ${result.usage.iterations} iterations, ${result.usage.modelAttempts} model attempts, ${result.usage.cachedToolCalls} cached tool calls`)}`);
}
