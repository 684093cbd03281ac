import type { ToolCall } from '../../src/messages/index.js';
import { createLoopDetector, type LoopDetector, type LoopDetectorOptions, type LoopReport, type LoopStep } from '../../src/loops/index.js';
import type { Logger } from '../../src/monitor/fail-open.js';

/** A logger that keeps what it was told. */
export function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => void warnings.push(message) };
}

/** A detector that logs into a recording logger rather than the console. */
export function detectorFor(options: LoopDetectorOptions = {}): LoopDetector & { logger: ReturnType<typeof recordingLogger> } {
  const logger = recordingLogger();
  return Object.assign(createLoopDetector({ logger, ...options }), { logger });
}

export const call = (name: string, args: Record<string, unknown> = {}, id?: string): ToolCall => ({ name, args, ...(id === undefined ? {} : { id }) });

/** A text-only step. */
export const say = (text: string): LoopStep => ({ text });

/** A step with one call and its result, as a host that sees whole steps sends it. */
export const act = (name: string, args: Record<string, unknown>, content: unknown, isError = false): LoopStep => ({
  toolCalls: [call(name, args)],
  toolResults: [{ name, content, isError }],
});

/** Observes every step structurally and returns the reports, one per step. */
export function runSteps(detector: LoopDetector, steps: readonly LoopStep[], sessionId = 's1', tenant?: string): (LoopReport | null)[] {
  return steps.map((step) => detector.observeStructural(sessionId, step, tenant === undefined ? undefined : { tenant }));
}

/** The same step `count` times. */
export const times = (count: number, step: LoopStep | ((index: number) => LoopStep)): LoopStep[] =>
  Array.from({ length: count }, (_, index) => (typeof step === 'function' ? step(index) : step));

/** The kinds reported, with `-` for a quiet step: easy to read in an assertion. */
export const kinds = (reports: readonly (LoopReport | null)[]): string[] => reports.map((report) => report?.kind ?? '-');
