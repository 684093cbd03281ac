import { generateText, jsonSchema, type InferToolOutput, stepCountIs, streamText, tool, ToolLoopAgent, wrapLanguageModel, type LanguageModelMiddleware, type StopCondition, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { expectTypeOf } from 'vitest';
import { guardTools, panoptesMiddleware, panoptesStopCondition, type PanoptesMiddlewareOptions } from '../../../adapters/ai-sdk/index.js';
import type { Monitor } from '../../../src/index.js';

declare const monitor: Monitor;

// The middleware is the host's own type, so wrapLanguageModel takes it as is.
expectTypeOf(panoptesMiddleware({ monitor })).toEqualTypeOf<LanguageModelMiddleware>();
wrapLanguageModel({ model: new MockLanguageModelV3(), middleware: [panoptesMiddleware({ monitor })] });

// Options reject unknown keys.
// @ts-expect-error `session` is not an option (it is `sessionId`)
panoptesMiddleware({ monitor, session: 's1' } satisfies PanoptesMiddlewareOptions);

// Guarded tools keep their types: a refusal is thrown (a tool error), never an output.
const refund = tool({
  inputSchema: jsonSchema<{ orderId: string }>({ type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] }),
  execute: async ({ orderId }) => ({ refunded: orderId }),
});
const guarded = guardTools({ refund }, { monitor, sessionId: 's1' });
expectTypeOf(guarded.refund.execute).parameter(0).toEqualTypeOf<{ orderId: string }>();
expectTypeOf<InferToolOutput<typeof guarded.refund>>().toEqualTypeOf<{ refunded: string }>();

// The stop condition fits stopWhen beside the host's own conditions, for any tool set.
expectTypeOf(panoptesStopCondition({ monitor })).toExtend<StopCondition<ToolSet>>();
expectTypeOf(panoptesStopCondition({ monitor })).toExtend<StopCondition<typeof guarded>>();
void generateText({ model: new MockLanguageModelV3(), tools: guarded, prompt: 'Refund order 42.', stopWhen: [stepCountIs(5), panoptesStopCondition({ monitor })] });

// Issue 13, item 9: also when the options are built in a variable first, so the tool set is inferred from the
// variable and the condition must fit StopCondition<{ refund: … }>, alone or in a list.
const options = { model: new MockLanguageModelV3(), tools: { refund }, stopWhen: [stepCountIs(5), panoptesStopCondition({ monitor })], prompt: 'Refund order 42.' };
void generateText(options);
void streamText(options);
const single = { model: new MockLanguageModelV3(), tools: guarded, stopWhen: panoptesStopCondition({ monitor, sessionId: 's1' }), prompt: 'Refund order 42.' };
void generateText(single);
void new ToolLoopAgent({ model: new MockLanguageModelV3(), tools: guarded, stopWhen: [stepCountIs(5), panoptesStopCondition({ monitor })] });
