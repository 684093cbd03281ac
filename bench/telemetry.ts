/**
 * Telemetry overhead per model call (DESIGN.md section 13), three monitors compared in the same run:
 * - telemetry off (`telemetry: false`): the baseline;
 * - the OpenTelemetry API only, no SDK registered (the default for every user): <= 2 us more;
 * - the real SDK with a batch span processor, an in-memory exporter and a metric reader: <= 40 us more.
 * The three run interleaved in rounds, so drift on a shared machine falls on all of them alike; each row's p50 is the
 * median of its rounds' p50s.
 */
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { createMonitor, parseWorkflow, type AssistantTurn, type ChatMessage, type Monitor } from 'panoptes';
import { measureAsync, type BenchRow } from './harness.js';

class QuietReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

const workflow = parseWorkflow(`
name: bench-telemetry
states:
  - { name: greeting, initial: true, classification: { patterns: ["\\\\bhello\\\\b"] } }
  - { name: lookup, classification: { tool_calls: [get_order] } }
  - { name: answer, classification: { patterns: ["your order"] } }
transitions:
  - { from: greeting, to: lookup }
  - { from: lookup, to: answer }
  - { from: answer, to: lookup }
constraints:
  - { name: look_first, type: precedence, trigger: answer, target: lookup, severity: warning }
`);

const conversation: ChatMessage[] = [
  { role: 'system', content: 'You are a support agent.' },
  { role: 'user', content: 'Where is my order?' },
];
const turns: AssistantTurn[] = [
  { content: '', toolCalls: [{ id: 'c1', name: 'get_order', args: { id: 42 } }] },
  { content: 'Your order left the warehouse this morning.', toolCalls: [] },
  { content: 'Is there anything else I can help with?', toolCalls: [] },
];

/** One model call as an adapter makes it: beforeModel, the (scripted) model, afterModel, and beforeTool for each call. */
async function modelCall(monitor: Monitor, i: number): Promise<void> {
  const sessionId = `s${i % 50}`;
  await monitor.beforeModel(sessionId, { messages: conversation });
  const turn = turns[i % turns.length]!;
  await monitor.afterModel(sessionId, turn);
  for (const toolCall of turn.toolCalls) await monitor.beforeTool(sessionId, toolCall);
}

export async function telemetryBench(): Promise<BenchRow[]> {
  const logger = { warn: () => {} };
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
  const meterProvider = new MeterProvider({ readers: [new QuietReader()] });
  const variants = [
    { name: 'telemetry off (baseline)', monitor: createMonitor({ workflow, logger, telemetry: false }) },
    { name: 'OpenTelemetry API only, no SDK', monitor: createMonitor({ workflow, logger }) },
    { name: 'SDK: batch span processor, in-memory exporter, metric reader', monitor: createMonitor({ workflow, logger, tracer: provider.getTracer('panoptes'), meter: meterProvider.getMeter('panoptes') }) },
  ];
  const rounds = 7;
  const p50s = variants.map(() => [] as number[]);
  const p99s = variants.map(() => [] as number[]);
  const means = variants.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (const [index, variant] of variants.entries()) {
      const timing = await measureAsync((i) => modelCall(variant.monitor, i), { samples: 1500, warmup: round === 0 ? 1500 : 150 });
      p50s[index]!.push(timing.p50Us);
      p99s[index]!.push(timing.p99Us);
      means[index]!.push(timing.meanUs);
      exporter.reset(); // the exporter keeps what it got; the bench measures Panoptes, not a growing array
    }
  }
  await provider.shutdown();
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const baseline = median(p50s[0]!);
  return variants.map((variant, index) => {
    const p50Us = median(p50s[index]!);
    const added = p50Us - baseline;
    const target = index === 1 ? 'added <= 2 us' : index === 2 ? 'added <= 40 us' : undefined;
    return {
      suite: 'telemetry',
      name: `model call (beforeModel, afterModel, beforeTool), ${variant.name}`,
      samples: rounds * 1500,
      p50Us,
      p99Us: median(p99s[index]!),
      meanUs: means[index]!.reduce((sum, value) => sum + value, 0) / rounds,
      extra: { 'added p50 us': Number(added.toFixed(2)), rounds },
      ...(target ? { target, met: added <= (index === 1 ? 2 : 40) } : {}),
    };
  });
}
