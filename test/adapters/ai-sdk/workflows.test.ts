import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { guardTools, panoptesMiddleware } from '../../../adapters/ai-sdk/index.js';
import { createMonitor } from '../../../src/index.js';
import { refundsWorkflow as refunds } from '../../monitor/fixtures.js';
import { callTool, recordingLogger, say, sequenceModel, workflow as support } from './fixtures.js';


const noInput = jsonSchema<Record<string, never>>({ type: 'object', properties: {}, additionalProperties: false });

describe('a monitor of several workflows through the AI SDK middleware', () => {
  it('checks each session against the workflow its first message chose', async () => {
    const monitor = createMonitor({ workflows: { support, refunds }, default: 'support', select: { firstMessage: { refunds: ['refund'] } }, logger: recordingLogger() });
    const ran: string[] = [];
    const tools = {
      get_booking: tool({ description: 'Look a booking up', inputSchema: noInput, execute: async () => (ran.push('get_booking'), 'B1') }),
      issue_refund: tool({ description: 'Refund', inputSchema: noInput, execute: async () => (ran.push('issue_refund'), 'refunded') }),
    };
    const run = (sessionId: string, prompt: string, ...script: Parameters<typeof sequenceModel>) =>
      generateText({ model: wrapLanguageModel({ model: sequenceModel(...script), middleware: panoptesMiddleware({ monitor, sessionId }) }), tools: guardTools(tools, { monitor, sessionId }), prompt, stopWhen: stepCountIs(4) });

    await run('r1', 'Please refund booking B1.', callTool('get_booking', 'g1'), callTool('issue_refund', 'i1'), say('Refunded.'));
    expect(ran).toEqual(['get_booking', 'issue_refund']);
    await run('s1', 'Hello, a question about B2.', callTool('issue_refund', 'i2'), say('I need to verify you first.'));
    expect(ran).toEqual(['get_booking', 'issue_refund']); // support refuses a refund before the identity check

    expect(await monitor.report('r1')).toMatchObject({ workflowId: 'refunds', trace: ['start', 'lookup', 'refund'] });
    expect(await monitor.report('s1')).toMatchObject({ workflowId: 'support', refusals: [{ state: 'account_action', constraints: ['verify_first'] }] });
  });
});
