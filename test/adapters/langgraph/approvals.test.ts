/**
 * Issue 14, native approvals in LangGraph: `GuardedToolNode({ approvals: true })` asks the policy's confirmation of
 * one call with `interrupt()`, and the resume value records it for that exact call (or the edited one).
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel, type FakeBuiltModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { toolsCondition } from '@langchain/langgraph/prebuilt';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GuardedToolNode, type ApprovalRequest } from '../../../adapters/langgraph/index.js';
import { createAirlineSession } from '../../../examples/airline/sentinel.js';
import { InvalidOptionError } from '../../../src/index.js';

const BAGS = { reservation_id: 'VAAOXJ', total_baggages: 3, nonfree_baggages: 2, payment_id: 'credit_card_1052991' };
const thread = { configurable: { thread_id: 'bags' } };

async function world(model: FakeBuiltModel) {
  const session = await createAirlineSession({ userId: 'lei_rossi_3206' });
  const ran: unknown[] = [];
  const bags = tool(async (args) => (ran.push(args), JSON.stringify(session.tools.update_reservation_baggages!.execute(args))), {
    name: 'update_reservation_baggages',
    description: 'Change the bags of a reservation',
    schema: z.object({ reservation_id: z.string(), total_baggages: z.number(), nonfree_baggages: z.number(), payment_id: z.string() }),
  });
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode('tools', new GuardedToolNode([bags], { sentinel: session.sentinel, approvals: true }))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition, ['tools', END])
    .addEdge('tools', 'agent')
    .compile({ checkpointer: new MemorySaver() });
  return { ...session, ran, graph };
}
const callBags = (args: Record<string, unknown>) => new AIMessage({ content: '', tool_calls: [{ id: 'b1', name: 'update_reservation_baggages', args, type: 'tool_call' }] });
const lastTool = (messages: BaseMessage[]) => messages.filter((message) => ToolMessage.isInstance(message)).at(-1) as ToolMessage;

describe('GuardedToolNode({ approvals: true })', () => {
  it('pauses with the exact call; approving records the confirmation for it, and it runs', async () => {
    const { graph, ran, db, facts } = await world(fakeModel().respond(callBags(BAGS)).respond(new AIMessage('Done.')));
    const paused = await graph.invoke({ messages: [new HumanMessage('Three bags on VAAOXJ.')] }, thread);
    const request = (paused as { __interrupt__?: Array<{ value: ApprovalRequest }> }).__interrupt__?.[0]?.value;
    expect(request).toMatchObject({ type: 'panoptes-approval', tool: 'update_reservation_baggages', args: BAGS });
    expect(request!.questions[0]).toContain('update_reservation_baggages(reservation_id: "VAAOXJ", total_baggages: 3, nonfree_baggages: 2');
    expect(ran).toEqual([]);

    const resumed = await graph.invoke(new Command({ resume: { decision: 'approve' } }), thread);
    expect(ran).toEqual([BAGS]);
    expect(db.reservations.VAAOXJ).toMatchObject({ total_baggages: 3, nonfree_baggages: 2 });
    expect(lastTool(resumed.messages).status).not.toBe('error');
    expect(facts.facts('confirms_baggage_update')).toEqual([]); // consumed by the call that ran
  });

  it('rejecting answers the model with the refusal; the call never runs', async () => {
    const { graph, ran } = await world(fakeModel().respond(callBags(BAGS)).respond(new AIMessage('Understood.')));
    await graph.invoke({ messages: [new HumanMessage('Three bags.')] }, thread);
    const resumed = await graph.invoke(new Command({ resume: { decision: 'reject', reason: 'too expensive' } }), thread);
    expect(ran).toEqual([]);
    expect(lastTool(resumed.messages)).toMatchObject({ status: 'error', content: 'The user declined this update_reservation_baggages call: too expensive Do not retry it unless they ask again.' });
  });

  it('an edit approves the edited call only, which is checked again (and refused when the policy says no)', async () => {
    const { graph, ran } = await world(fakeModel().respond(callBags(BAGS)).respond(new AIMessage('Noted.')));
    await graph.invoke({ messages: [new HumanMessage('Three bags.')] }, thread);
    const resumed = await graph.invoke(new Command({ resume: { decision: 'edit', args: { ...BAGS, nonfree_baggages: 0 } } }), thread);
    expect(ran).toEqual([]);
    expect(lastTool(resumed.messages).content).toMatch(/^update_reservation_baggages is not allowed by the policy: 3 bags with 1 free .* means 2 paid bags, not 0\./);
  });

  it('is refused at construction without a sentinel', () => {
    expect(() => new GuardedToolNode([], { monitor: { beforeTool: () => ({ action: 'allow' }) } as never, approvals: true })).toThrow(InvalidOptionError);
  });
});
