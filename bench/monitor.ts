/**
 * Classification and monitor overhead (DESIGN.md section 13):
 * - the tool-call and pattern tiers on a 20-state, 100-pattern workflow (p50 <= 20 us, p99 <= 100 us);
 * - exemplar lookup among 1,000 exemplars, excluding the embedding (<= 0.2 ms);
 * - the monitor's added time per model call without embeddings (<= 0.2 ms), against the same loop without it;
 * - the size of an idle session (<= 4 KB).
 */
import {
  createClassifier,
  createLexicalEmbedder,
  createMemorySessionStore,
  createMonitor,
  exemplarIndex,
  parseWorkflow,
  type AssistantTurn,
  type ChatMessage,
  type MonitorSession,
} from 'panoptes';
import { measure, measureAsync, type BenchRow } from './harness.js';

const WORDS = ['refund', 'order', 'account', 'password', 'invoice', 'delivery', 'address', 'warranty', 'upgrade', 'cancel'];

/** 20 states, 5 patterns each (100 in all), 2 tools each, 50 exemplars each (1,000 in all), a ring of transitions. */
function benchWorkflow() {
  const lines = ['name: bench-classify', 'states:'];
  for (let s = 0; s < 20; s++) {
    const patterns = Array.from({ length: 5 }, (_, p) => `"\\\\b${WORDS[(s + p) % 10]}\\\\s+(status|issue|${s}x${p})\\\\b"`);
    const exemplars = Array.from({ length: 50 }, (_, e) => `"state ${s} exemplar ${e}: ${WORDS[s % 10]} ${WORDS[e % 10]} ${e * 7 + s}"`);
    lines.push(
      `  - name: s${s}`,
      ...(s === 0 ? ['    initial: true'] : []),
      `    transitions: [s${(s + 1) % 20}, s${(s + 2) % 20}]`,
      '    classification:',
      `      tool_calls: [tool_${s}_a, tool_${s}_b]`,
      `      patterns: [${patterns.join(', ')}]`,
      `      exemplars: [${exemplars.join(', ')}]`,
    );
  }
  lines.push('constraints:');
  for (let c = 0; c < 10; c++) lines.push(`  - { name: c${c}, type: precedence, trigger: s${(c * 2 + 3) % 20}, target: s${(c * 2 + 1) % 20}, severity: warning }`);
  return parseWorkflow(lines.join('\n'));
}

const TEXTS = [
  'Sure, let me look into the delivery issue for you right away.',
  'I have checked and your refund status is pending approval from our billing team.',
  'Thanks for waiting. Nothing in this message matches any pattern at all, it is just a long friendly reply.',
];

export async function monitorBench(): Promise<BenchRow[]> {
  const workflow = benchWorkflow();
  const rows: BenchRow[] = [];
  const classifier = createClassifier({ workflow });
  const toolTurn: AssistantTurn = { content: '', toolCalls: [{ id: 'c1', name: 'tool_7_b', args: {} }] };
  const tiers = [
    ['tool-call tier', (i: number) => classifier.classify(i % 2 ? toolTurn : { ...toolTurn, toolCalls: [{ name: 'tool_3_a', args: {} }] }, 's2')],
    ['pattern tier (match or fall through, 100 patterns)', (i: number) => classifier.classify({ content: TEXTS[i % TEXTS.length]!, toolCalls: [] }, 's1')],
  ] as const;
  for (const [name, run] of tiers) {
    // A long warm-up: in a process of its own, the first thousands of calls still pay for compiling and growing the heap.
    const timing = await measureAsync(run, { samples: 5000, warmup: 5000 });
    rows.push({ suite: 'monitor', name: `classification, ${name}, 20 states`, ...timing, target: 'p50 <= 20 us, p99 <= 100 us', met: timing.p50Us <= 20 && timing.p99Us <= 100 });
  }

  const embedder = createLexicalEmbedder();
  const index = await exemplarIndex(workflow, embedder);
  const queries = await embedder.embedDocuments(TEXTS);
  const lookup = measure((i) => index.lookup(queries[i % queries.length]!), { samples: 2000, warmup: 200 });
  rows.push({ suite: 'monitor', name: `exemplar lookup, ${index.size} exemplars, excluding the embedding`, ...lookup, target: '<= 200 us', met: lookup.p50Us <= 200 });

  const conversation: ChatMessage[] = [
    { role: 'system', content: 'You are a support agent.' },
    { role: 'user', content: 'Where is my order?' },
  ];
  const turns: AssistantTurn[] = [toolTurn, { content: TEXTS[1]!, toolCalls: [] }, { content: TEXTS[2]!, toolCalls: [] }];
  const fakeModel = (i: number) => turns[i % turns.length]!;
  const baseline = await measureAsync(async (i) => fakeModel(i), { samples: 3000, warmup: 300 });
  const monitor = createMonitor({ workflow, logger: { warn: () => {} } });
  const monitored = await measureAsync(
    async (i) => {
      const before = await monitor.beforeModel(`s${i % 50}`, { messages: conversation });
      const turn = fakeModel(i);
      await monitor.afterModel(`s${i % 50}`, turn);
      return before;
    },
    { samples: 3000, warmup: 300 },
  );
  const added = monitored.p50Us - baseline.p50Us;
  rows.push({ suite: 'monitor', name: 'model call without Panoptes (scripted model, baseline)', ...baseline });
  rows.push({
    suite: 'monitor',
    name: 'model call with beforeModel + afterModel, no embeddings',
    ...monitored,
    extra: { 'added p50 us': Number(added.toFixed(1)) },
    target: 'added <= 200 us',
    met: added <= 200,
  });

  const store = createMemorySessionStore<MonitorSession>();
  const sized = createMonitor({ workflow, store, logger: { warn: () => {} } });
  // A session is first written when its first response is classified (a call with nothing due writes nothing).
  await sized.beforeModel('idle', { messages: conversation });
  await sized.afterModel('idle', { content: 'Hello! How can I help you today?', toolCalls: [] });
  const bytes = JSON.stringify(store.get('idle')).length;
  rows.push({ suite: 'monitor', name: 'idle session after its first model call (10 constraints), JSON', samples: 0, p50Us: 0, p99Us: 0, meanUs: 0, extra: { bytes }, target: '<= 4096 bytes', met: bytes <= 4096 });
  return rows;
}
