import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { panoptesMiddleware } from '../../../adapters/langchain/index.js';
import { createMonitor, type SessionReport } from '../../../src/index.js';
import { callTool, recordingLogger, refundTools, refundWorkflow, supportTools, supportWorkflow } from './helpers.js';

const ask = (text: string) => ({ messages: [new HumanMessage(text)] });
const thread = (id: string) => ({ configurable: { thread_id: id }, recursionLimit: 100 });

describe('a monitor of several workflows through createAgent', () => {
  it("checks each thread against the workflow its first message chose: a refund thread needs a lookup, a support thread the customer's identity", async () => {
    const logger = recordingLogger();
    const monitor = createMonitor({ workflows: { support: supportWorkflow, refunds: refundWorkflow }, default: 'support', select: { firstMessage: { refunds: ['\\brefund'] } }, logger });
    const { getBooking, issueRefund, refund } = refundTools();
    const { verifyIdentity } = supportTools();
    const model = fakeModel()
      // The refund thread: look the booking up, then refund it (what refunds asks for; support would refuse it).
      .respond(callTool('get_booking', { booking_id: 'B1' }, 'g1'))
      .respond(callTool('issue_refund', { booking_id: 'B1' }, 'r1'))
      .respond(new AIMessage('Refunded B1.'))
      // The support thread: a refund straight away, without verifying the customer.
      .respond(callTool('issue_refund', { booking_id: 'B2' }, 'r2'))
      .respond(new AIMessage('I need to verify who you are first.'))
      // The refund thread again: a later message that would choose support changes nothing.
      .respond(new AIMessage('Glad I could help.'));
    const reports: SessionReport[] = [];
    const agent = createAgent({ model, tools: [getBooking, issueRefund, verifyIdentity], middleware: [panoptesMiddleware({ monitor, logger, onReport: (report) => void reports.push(report) })] });

    await agent.invoke(ask('I want a refund for booking B1, the airline cancelled it.'), thread('t-refund'));
    const support = await agent.invoke(ask('Hello, something is wrong with booking B2.'), thread('t-support'));
    await agent.invoke(ask('Thanks, that is all.'), thread('t-refund'));

    expect(refund.mock.calls.map(([args]) => args)).toEqual([{ booking_id: 'B1' }]);
    const refused = support.messages.find((message) => ToolMessage.isInstance(message) && message.tool_call_id === 'r2') as ToolMessage;
    expect(refused.status).toBe('error');
    expect(refused.content).toMatch(/^The call to issue_refund was refused and did not run\./);

    expect(reports.map((report) => [report.sessionId, report.workflowId, report.workflow, report.trace.at(-1)])).toEqual([
      ['t-refund', 'refunds', 'refunds', 'refund'],
      ['t-support', 'support', 'customer-support', 'greeting'],
      ['t-refund', 'refunds', 'refunds', 'refund'],
    ]);
    expect(await monitor.workflowOf('t-refund')).toBe('refunds');
    expect(monitor.misses()).toEqual({});
    expect(logger.warnings).toEqual([]);
  });
});
