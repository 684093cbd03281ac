/** `createMonitor` gives a monitor of several workflows for `workflows`, and the plain monitor for `workflow`. */
import { expectTypeOf } from 'vitest';
import { createMemorySessionStore, createMonitor, type Monitor, type WorkflowsMonitor, type Workflow } from '../../src/index.js';
import type { RedisSessionStore } from '../../src/store/redis/index.js';
import type { MonitorSession } from '../../src/index.js';

declare const support: Workflow;
declare const refunds: Workflow;
declare const redis: RedisSessionStore<MonitorSession>;

const several = createMonitor({ workflows: { support, refunds }, default: 'support', select: { firstMessage: { refunds: ['refund'] } } });
expectTypeOf(several).toEqualTypeOf<WorkflowsMonitor>();
expectTypeOf(several.startSession('s1', { attributes: { team: 'refunds' } })).toEqualTypeOf<Promise<string>>();
expectTypeOf(several).toMatchTypeOf<Monitor>();
const one = createMonitor({ workflow: support });
expectTypeOf(one).toEqualTypeOf<Monitor>();
// The stores a monitor takes fit a monitor of several workflows.
createMonitor({ workflows: { support }, default: 'support', store: redis });
createMonitor({ workflows: { support }, default: 'support', store: createMemorySessionStore(), select: async ({ firstMessage }) => (firstMessage?.includes('refund') ? 'refunds' : undefined) });
// @ts-expect-error one workflow or several, not both
createMonitor({ workflow: support, workflows: { support }, default: 'support' });
// @ts-expect-error several workflows need a default
createMonitor({ workflows: { support } });
