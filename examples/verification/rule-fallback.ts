import type { FallbackVerdict, VerificationFallbackContext } from 'panoptes/langgraph';

/**
 * A rule-based fallback for the example's prior-authorization criteria: when the model is down (its retries spent,
 * or a permanent error such as a revoked key), the verifier decides from the case's fields with the policy's rules
 * written as code. Its verdict is the result, marked `fallbackUsed`; a criterion without a rule stays `uncertain`.
 */
export function ruleFallback({ caseBundle, criterion, error }: VerificationFallbackContext): FallbackVerdict {
  const rule = RULES[criterion.id];
  if (!rule) return { status: 'uncertain', confidence: 0, rationale: `No rule for ${criterion.id}, and the model failed: ${error instanceof Error ? error.message : String(error)}` };
  return rule(caseBundle as Case);
}

type Case = {
  pain_duration_weeks?: number;
  conservative_therapy?: { type: string; weeks: number; improved?: boolean };
  red_flags?: string[];
  icd10_code?: string;
  months_since_last_lumbar_mri?: number | null;
  new_injury?: boolean;
  neurological_change?: boolean;
};

const RULES: Record<string, (fields: Case) => FallbackVerdict> = {
  // policy 2.1 and 2.2
  necessity: ({ pain_duration_weeks: weeks = 0, conservative_therapy: therapy, red_flags: flags = [] }) => {
    if (flags.length > 0) return { status: 'met', confidence: 0.8, rationale: `Rule 2.2: red flags documented (${flags.join(', ')}).` };
    if (!therapy) return { status: 'uncertain', confidence: 0.3, rationale: 'Rule 2.1 needs the conservative therapy, and the case does not give it.' };
    const met = weeks >= 6 && therapy.weeks >= 6 && !therapy.improved;
    return { status: met ? 'met' : 'not_met', confidence: 0.8, rationale: `Rule 2.1: ${weeks} weeks of pain, ${therapy.weeks} weeks of ${therapy.type}${therapy.improved ? ' with improvement' : ' without improvement'}.` };
  },
  // policy 3.2
  diagnosis_code: ({ icd10_code: code }) => (code ? { status: 'met', confidence: 0.9, rationale: `Rule 3.2: ICD-10 code ${code} is given.` } : { status: 'not_met', confidence: 0.9, rationale: 'Rule 3.2: the request gives no ICD-10 code.' }),
  // policy 4.1
  no_repeat_imaging: ({ months_since_last_lumbar_mri: months, new_injury, neurological_change }) => {
    if (months === undefined || months === null || months >= 12) return { status: 'met', confidence: 0.8, rationale: 'Rule 4.1: no lumbar MRI in the previous 12 months.' };
    return new_injury || neurological_change ? { status: 'met', confidence: 0.8, rationale: 'Rule 4.1: an exception applies (new injury or neurological change).' } : { status: 'not_met', confidence: 0.85, rationale: `Rule 4.1: a lumbar MRI ${months} months ago, and no exception.` };
  },
};
