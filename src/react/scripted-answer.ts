/**
 * One scripted verdict, what a stand-in model concludes for a case and a criterion: the answers file of
 * `panoptes verify --scripted`, read by the CLI and answered by the langgraph adapter's scripted model.
 */
export interface ScriptedAnswer {
  case: string;
  criterion: string;
  status: 'met' | 'not_met' | 'uncertain';
  confidence: number;
  /** Quotes of the policy; the source and section are taken from the passage retrieved that holds the quote, unless given. */
  citations: Array<{ quote: string; source?: string; section?: string }>;
  rationale: string;
  /** Words to search the policy with when the criterion's text does not retrieve the quoted passage. */
  query?: string;
}
