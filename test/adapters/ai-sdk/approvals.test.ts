/**
 * Issue 14, native approvals: the policy's confirmation of one call through the AI SDK's tool approval. The airline
 * example's baggage change, with everything else established, is blocked only on the customer's yes to that exact call.
 */
import { generateText, stepCountIs, tool, jsonSchema, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { guardTools } from '../../../adapters/ai-sdk/index.js';
import { createAirlineSession } from '../../../examples/airline/sentinel.js';
import { InvalidOptionError } from '../../../src/index.js';
import { callTool, refusalIn, say, sequenceModel } from './fixtures.js';

const BAGS = { reservation_id: 'VAAOXJ', total_baggages: 3, nonfree_baggages: 2, payment_id: 'credit_card_1052991' };

async function world() {
  const session = await createAirlineSession({ userId: 'lei_rossi_3206' });
  const ran: unknown[] = [];
  const tools = {
    update_reservation_baggages: tool({
      description: 'Change the bags of a reservation',
      inputSchema: jsonSchema<typeof BAGS>({ type: 'object', properties: {} }),
      execute: async (input) => (ran.push(input), session.tools.update_reservation_baggages!.execute(input)),
    }),
  };
  return { ...session, ran, guarded: guardTools(tools, { sentinel: session.sentinel, approvals: true }) };
}

describe('guardTools({ approvals: true })', () => {
  it('asks for the confirmation with a tool approval; the approval records it for that exact call, which then runs', async () => {
    const { guarded, ran, db, facts } = await world();
    const first = await generateText({ model: sequenceModel(callTool('update_reservation_baggages', 'b1', BAGS)), tools: guarded, prompt: 'Three bags on VAAOXJ, please.', stopWhen: stepCountIs(2) });
    const request = first.content.find((part) => part.type === 'tool-approval-request');
    expect(request).toMatchObject({ type: 'tool-approval-request', toolCall: { toolCallId: 'b1', toolName: 'update_reservation_baggages' } });
    expect(ran).toEqual([]);

    // The customer approves in the app's UI; the conversation goes on with the approval.
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Three bags on VAAOXJ, please.' },
      ...first.response.messages,
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request!.approvalId, approved: true }] },
    ];
    const second = await generateText({ model: sequenceModel(say('Done: three bags.')), tools: guarded, messages, stopWhen: stepCountIs(2) });
    expect(ran).toEqual([BAGS]);
    expect(db.reservations.VAAOXJ).toMatchObject({ total_baggages: 3, nonfree_baggages: 2 });
    expect(second.text).toBe('Done: three bags.');
    expect(facts.facts('confirms_baggage_update')).toEqual([]); // recorded for the call, consumed when it ran
  });

  it('a denied approval never runs the call nor records anything', async () => {
    const { guarded, ran, facts } = await world();
    const first = await generateText({ model: sequenceModel(callTool('update_reservation_baggages', 'b1', BAGS)), tools: guarded, prompt: 'Bags.', stopWhen: stepCountIs(2) });
    const request = first.content.find((part) => part.type === 'tool-approval-request')!;
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Bags.' },
      ...first.response.messages,
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request.approvalId, approved: false, reason: 'No.' }] },
    ];
    await generateText({ model: sequenceModel(say('Understood.')), tools: guarded, messages, stopWhen: stepCountIs(2) });
    expect(ran).toEqual([]);
    expect(facts.facts('confirms_baggage_update')).toEqual([]);
  });

  it('a call refused for a reason no approval can fix is not put to the human: the model reads the refusal', async () => {
    const { guarded, ran } = await world();
    const wrong = { ...BAGS, nonfree_baggages: 0 };
    const result = await generateText({ model: sequenceModel(callTool('update_reservation_baggages', 'b1', wrong), say('Sorry.')), tools: guarded, prompt: 'Bags.', stopWhen: stepCountIs(3) });
    expect(result.steps[0]!.content.some((part) => part.type === 'tool-approval-request')).toBe(false);
    expect(refusalIn(result.steps[0]!.content)?.reason.split('\n')[0]).toBe('update_reservation_baggages is not allowed by the policy: 3 bags with 1 free (membership, cabin and passengers of VAAOXJ) means 2 paid bags, not 0.');
    expect(ran).toEqual([]);
  });

  it('is refused at construction without a sentinel to record into', () => {
    expect(() => guardTools({}, { monitor: { beforeTool: () => ({ action: 'allow' }) } as never, approvals: true })).toThrow(InvalidOptionError);
  });
});
