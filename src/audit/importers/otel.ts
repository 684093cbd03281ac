import { isRecord } from '../messages.js';

const INPUT = 'gen_ai.input.messages';
const OUTPUT = 'gen_ai.output.messages';
const INSTRUCTIONS = 'gen_ai.system_instructions';

/** Whether a value is an OpenTelemetry trace export: OTLP JSON (`resourceSpans`) or a list of spans with attributes. */
export function isOtelExport(value: unknown): boolean {
  if (isRecord(value) && Array.isArray(value.resourceSpans)) return true;
  return Array.isArray(value) && value.length > 0 && value.every((span) => isRecord(span) && 'attributes' in span && ('traceId' in span || 'spanId' in span || 'name' in span));
}

/**
 * One conversation per trace: the GenAI span that ended last holds the whole conversation in its
 * `gen_ai.input.messages` (with `gen_ai.system_instructions`) and `gen_ai.output.messages`, written in the GenAI
 * semantic conventions' message form (`{ role, parts: [{ type: 'text' | 'tool_call' | 'tool_call_response', ... }] }`).
 * Returned as OpenAI chat messages. Spans without those attributes are skipped.
 */
export function fromOtelExport(value: unknown): Array<{ id: string; messages: unknown[] }> {
  const spans = isRecord(value) && Array.isArray(value.resourceSpans) ? otlpSpans(value.resourceSpans) : (value as unknown[]).filter(isRecord);
  const latest = new Map<string, { end: number; attributes: Record<string, unknown> }>();
  for (const span of spans) {
    const attributes = attributesOf(span.attributes);
    if (attributes[INPUT] === undefined && attributes[OUTPUT] === undefined) continue;
    const trace = String(span.traceId ?? span.trace_id ?? 'trace');
    const end = Number(span.endTimeUnixNano ?? span.end_time ?? 0);
    const seen = latest.get(trace);
    if (!seen || end >= seen.end) latest.set(trace, { end, attributes });
  }
  return [...latest].map(([id, { attributes }]) => ({
    id,
    messages: [...instructions(attributes[INSTRUCTIONS]), ...semconvMessages(attributes[INPUT]), ...semconvMessages(attributes[OUTPUT])],
  }));
}

function otlpSpans(resourceSpans: unknown[]): Record<string, unknown>[] {
  return resourceSpans
    .filter(isRecord)
    .flatMap((resource) => (Array.isArray(resource.scopeSpans) ? resource.scopeSpans : []))
    .filter(isRecord)
    .flatMap((scope) => (Array.isArray(scope.spans) ? scope.spans : []))
    .filter(isRecord);
}

/** OTLP's `[{ key, value: { stringValue } }]`, or an object of attributes as other exporters write them. */
function attributesOf(value: unknown): Record<string, unknown> {
  if (isRecord(value)) return value;
  if (!Array.isArray(value)) return {};
  const attributes: Record<string, unknown> = {};
  for (const entry of value) {
    if (!isRecord(entry) || typeof entry.key !== 'string' || !isRecord(entry.value)) continue;
    const inner = entry.value;
    attributes[entry.key] = inner.stringValue ?? inner.intValue ?? inner.doubleValue ?? inner.boolValue;
  }
  return attributes;
}

function parsed(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

function instructions(value: unknown): unknown[] {
  const parts = parsed(value);
  if (!Array.isArray(parts)) return [];
  const text = parts.filter(isRecord).map((part) => part.content).filter((content) => typeof content === 'string').join('\n');
  return text ? [{ role: 'system', content: text }] : [];
}

function semconvMessages(value: unknown): unknown[] {
  const messages = parsed(value);
  if (!Array.isArray(messages)) return [];
  return messages.filter(isRecord).flatMap((message): unknown[] => {
    const parts = Array.isArray(message.parts) ? message.parts.filter(isRecord) : [];
    const responses = parts.filter((part) => part.type === 'tool_call_response');
    if (message.role === 'tool' || responses.length > 0) {
      return responses.map((part) => ({ role: 'tool', tool_call_id: part.id, content: typeof part.response === 'string' ? part.response : JSON.stringify(part.response ?? null) }));
    }
    const text = parts.filter((part) => part.type === 'text' && typeof part.content === 'string').map((part) => part.content as string).join('\n');
    const calls = parts
      .filter((part) => part.type === 'tool_call')
      .map((part) => ({ ...(typeof part.id === 'string' ? { id: part.id } : {}), type: 'function', function: { name: part.name, arguments: typeof part.arguments === 'string' ? part.arguments : JSON.stringify(part.arguments ?? {}) } }));
    return [{ role: message.role, content: text, ...(calls.length > 0 ? { tool_calls: calls } : {}) }];
  });
}
