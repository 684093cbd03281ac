import { Document } from '@langchain/core/documents';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { readingModel } from './helpers.js';

/**
 * An airline-refund reviewer as a new user would build one: three criteria, a short policy, and a scripted model
 * that reads its request (searches the policy, reads the case, then decides from the facts it was given).
 */
export const REFUND_POLICY = [
  new Document({ pageContent: '1.1 A refund request must be filed within 30 days of the scheduled departure.', metadata: { source: 'refund-policy.md', section: '1.1' } }),
  new Document({ pageContent: '2.1 Flexible fares are refundable. Basic fares are refundable only when the airline cancelled the flight.', metadata: { source: 'refund-policy.md', section: '2.1' } }),
  new Document({ pageContent: '3.1 The refund is paid to the original form of payment.', metadata: { source: 'refund-policy.md', section: '3.1' } }),
];

/** The whole policy for any query: three clauses. */
export const refundPolicy = async (_query: string) => REFUND_POLICY;

export const FILED_IN_TIME = { id: 'filed_in_time', text: 'The request was filed within 30 days of the flight.' };
export const FARE_REFUNDABLE = { id: 'fare_refundable', text: 'The fare is refundable under the fare rules.' };
export const ORIGINAL_PAYMENT = { id: 'original_payment', text: 'The refund goes to the original form of payment.' };
export const REFUND_CRITERIA = [FILED_IN_TIME, FARE_REFUNDABLE, ORIGINAL_PAYMENT];

export const promptClaim = { days_since_flight: 12, fare: 'flex', airline_cancelled: false, refund_to: 'original card' };
export const lateClaim = { days_since_flight: 120, fare: 'basic', airline_cancelled: false, refund_to: 'voucher' };

const FIELDS: Record<string, string[]> = { filed_in_time: ['days_since_flight'], fare_refundable: ['fare', 'airline_cancelled'], original_payment: ['refund_to'] };

let ids = 0;
const call = (name: string, args: Record<string, unknown>) => new AIMessage({ content: '', tool_calls: [{ name, args, id: `call_${++ids}`, type: 'tool_call' }] });

/** The verdict a careful reviewer reaches from the facts: status, the clause it rests on, and why. */
export function refundVerdict(criterion: string, facts: Record<string, any>): { status: 'met' | 'not_met'; quote: string; section: string; rationale: string } {
  if (criterion === 'filed_in_time') {
    const days = facts.days_since_flight as number;
    return { status: days <= 30 ? 'met' : 'not_met', section: '1.1', quote: 'A refund request must be filed within 30 days of the scheduled departure.', rationale: `filed after ${days} days` };
  }
  if (criterion === 'fare_refundable') {
    const refundable = facts.fare === 'flex' || facts.airline_cancelled === true;
    return { status: refundable ? 'met' : 'not_met', section: '2.1', quote: 'Flexible fares are refundable.', rationale: `a ${facts.fare} fare${facts.airline_cancelled ? ' on a cancelled flight' : ''}` };
  }
  return { status: facts.refund_to === 'original card' ? 'met' : 'not_met', section: '3.1', quote: 'The refund is paid to the original form of payment.', rationale: `refund to ${facts.refund_to}` };
}

/**
 * The scripted reviewer: it reads the last opening message (the criterion of the evaluation in hand), searches the
 * policy, reads the case's fields, and finishes with the verdict its facts give.
 */
export function refundReviewer(options: ReviewOptions = {}) {
  return readingModel((messages) => reviewStep(messages, options));
}

interface ReviewOptions {
  /** A call the reviewer makes after reading the case, before deciding, or undefined. */
  extraStep?: (messages: BaseMessage[]) => AIMessage | undefined;
}

/** The reviewer's next call, from its request. */
export function reviewStep(messages: BaseMessage[], options: ReviewOptions = {}): AIMessage {
  {
    const openingAt = messages.findLastIndex((message) => message.getType() === 'human' && String(message.content).startsWith('Criterion '));
    const criterion = /^Criterion (\S+):/.exec(String(messages[openingAt]?.content))?.[1] ?? '';
    const since = messages.slice(openingAt + 1).filter((message) => message.getType() === 'tool');
    if (!since.some((message) => message.name === 'search_policy')) return call('search_policy', { query: criterion.replace(/_/g, ' ') });
    const facts = since.find((message) => message.name === 'get_case_facts');
    if (!facts) return call('get_case_facts', { fields: FIELDS[criterion] ?? [] });
    const extra = options.extraStep?.(messages.slice(openingAt));
    if (extra) return extra;
    const verdict = refundVerdict(criterion, (JSON.parse(String(facts.content)) as { facts: Record<string, unknown> }).facts);
    return call('finish', { status: verdict.status, confidence: 0.9, citations: [{ source: 'refund-policy.md', section: verdict.section, quote: verdict.quote }], rationale: verdict.rationale });
  }
}
