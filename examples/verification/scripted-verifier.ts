import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';

/**
 * A scripted stand-in for an LLM that reads its request: from the opening message it learns the criterion, from the
 * tool results what it has read so far, and it decides as a careful reviewer would. It is naive in one way: when a
 * case points at "attached" records it keeps searching the policy for them, until Panoptes' loop hint in its request
 * tells it to change course, and then it abstains. Its first call of the whole run fails with a rate limit (429), to
 * show the retry.
 */
export function scriptedVerifier() {
  let calls = 0;
  const model = fakeModel();
  for (let index = 0; index < 1000; index++) {
    model.respond((messages: BaseMessage[]) => {
      calls++;
      if (calls === 1) return Object.assign(new Error('Rate limit reached for gpt-4o-mini'), { status: 429, name: 'RateLimitError' });
      return decide(messages);
    });
  }
  return model;
}

let ids = 0;
const call = (name: string, args: Record<string, unknown>, thought = '') => new AIMessage({ content: thought, tool_calls: [{ name, args, id: `call_${++ids}`, type: 'tool_call' }] });

const PLAN: Record<string, { query: string; fields: string[] }> = {
  necessity: { query: 'conservative therapy six weeks red-flag', fields: ['pain_duration_weeks', 'conservative_therapy', 'red_flags'] },
  diagnosis_code: { query: 'diagnosis ICD-10 code', fields: ['icd10_code', 'diagnosis'] },
  no_repeat_imaging: { query: 'repeat MRI within 12 months', fields: ['months_since_last_lumbar_mri', 'new_injury', 'neurological_change', 'imaging_history'] },
};

function decide(messages: BaseMessage[]): AIMessage {
  const opening = String(messages.find((message) => message.getType() === 'human')?.content ?? '');
  const criterion = /^Criterion (\S+):/.exec(opening)?.[1] ?? '';
  const plan = PLAN[criterion] ?? { query: opening.slice(0, 80), fields: [] };
  const results = messages.filter((message) => message.getType() === 'tool').map((message) => ({ name: message.name, text: String(message.content) }));
  const policy = results.filter((result) => result.name === 'search_policy').map((result) => result.text).join('\n');
  const factsText = results.find((result) => result.name === 'get_case_facts')?.text;
  const hinted = messages.some((message) => String(message.content).startsWith('[Panoptes]'));

  if (!policy) return call('search_policy', { query: plan.query }, `I need what the policy says about: ${criterion}.`);
  if (!factsText) return call('get_case_facts', { fields: plan.fields }, 'Now the case itself.');
  const facts = (JSON.parse(factsText) as { facts: Record<string, any> }).facts;
  if (facts.imaging_history === 'see attached' && !hinted) {
    return call('search_policy', { query: 'attached imaging history records' }, 'The imaging history is attached; the policy must say where to find it.');
  }
  const verdict = judge(criterion, facts, hinted);
  const quote = sentenceWith(policy, verdict.phrase);
  return call('finish', { status: verdict.status, confidence: verdict.confidence, citations: quote ? [{ source: 'imaging-policy.md', section: verdict.section, quote }] : [], rationale: verdict.rationale }, 'I have what I need.');
}

type Verdict = { status: 'met' | 'not_met' | 'uncertain'; confidence: number; section: string; phrase: string; rationale: string };

function judge(criterion: string, facts: Record<string, any>, hinted: boolean): Verdict {
  if (criterion === 'necessity') {
    const therapy = facts.conservative_therapy;
    const flags = facts.red_flags ?? [];
    if (flags.length > 0) return { status: 'met', confidence: 0.9, section: '2.2', phrase: 'without a trial of conservative therapy', rationale: `Red flags documented: ${flags.join(', ')}.` };
    if (!therapy) return { status: 'uncertain', confidence: 0.4, section: '2.1', phrase: 'completed at least six weeks of conservative therapy', rationale: 'The case does not say whether conservative therapy was tried.' };
    if (facts.pain_duration_weeks >= 6 && therapy.weeks >= 6 && !therapy.improved) return { status: 'met', confidence: 0.92, section: '2.1', phrase: 'completed at least six weeks of conservative therapy', rationale: `${facts.pain_duration_weeks} weeks of pain, ${therapy.weeks} weeks of ${therapy.type} without improvement.` };
    return { status: 'not_met', confidence: 0.88, section: '2.1', phrase: 'low back pain for at least six weeks', rationale: `${facts.pain_duration_weeks} weeks of pain and ${therapy.weeks} weeks of therapy, no red flags.` };
  }
  if (criterion === 'diagnosis_code') {
    return facts.icd10_code
      ? { status: 'met', confidence: 0.95, section: '3.2', phrase: 'diagnosis with an ICD-10 code', rationale: `ICD-10 code ${facts.icd10_code} is stated.` }
      : { status: 'not_met', confidence: 0.85, section: '3.2', phrase: 'diagnosis with an ICD-10 code', rationale: 'The request gives a diagnosis but no ICD-10 code.' };
  }
  if (hinted) return { status: 'uncertain', confidence: 0.3, section: '4.1', phrase: 'within 12 months of a previous lumbar MRI', rationale: 'The imaging history is only "see attached": the date of any earlier MRI cannot be checked.' };
  const months = facts.months_since_last_lumbar_mri;
  if (months === undefined || months === null) return { status: 'met', confidence: 0.8, section: '4.1', phrase: 'within 12 months of a previous lumbar MRI', rationale: 'No earlier lumbar MRI on record.' };
  if (months < 12 && !facts.new_injury && !facts.neurological_change) return { status: 'not_met', confidence: 0.9, section: '4.1', phrase: 'within 12 months of a previous lumbar MRI', rationale: `An MRI ${months} months ago, no new injury or neurological change.` };
  return { status: 'met', confidence: 0.85, section: '4.1', phrase: 'new injury', rationale: 'The earlier MRI is older than 12 months, or the exception applies.' };
}

/** The sentence of the retrieved text that holds `phrase`, copied word for word (as a careful model would quote). */
function sentenceWith(text: string, phrase: string): string | undefined {
  const flat = text.replace(/\s+/g, ' ');
  const at = flat.toLowerCase().indexOf(phrase.toLowerCase());
  if (at < 0) return undefined;
  const start = Math.max(flat.lastIndexOf('. ', at) + 2, flat.lastIndexOf('] ', at) + 2, 0);
  const end = flat.indexOf('.', at + phrase.length);
  return flat.slice(start, end < 0 ? undefined : end + 1).replace(/^source: \S+, section: [\d.]+ /, '').trim();
}
