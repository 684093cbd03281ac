/** The memory store fits `createMonitor` without a type argument: its values are a monitor's sessions by default. */
import { expectTypeOf } from 'vitest';
import { createMemorySessionStore, createMonitor, type MonitorOptions, type MonitorSession, type Workflow } from '../../src/index.js';

declare const workflow: Workflow;
const store = createMemorySessionStore();
expectTypeOf(store.get('s')).toEqualTypeOf<MonitorSession | undefined | Promise<MonitorSession | undefined>>();
expectTypeOf(store).toMatchTypeOf<NonNullable<MonitorOptions['store']>>();
createMonitor({ workflow, store });
// Another value type is still one type argument away.
expectTypeOf(createMemorySessionStore<{ count: number }>().get('s')).toEqualTypeOf<{ count: number } | undefined | Promise<{ count: number } | undefined>>();
