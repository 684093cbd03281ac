import type { Meter, Tracer } from '@opentelemetry/api';
import { systemClock, systemTimers, type Clock, type Timers } from '../clock/index.js';
import { didYouMean } from '../diagnostics/index.js';
import { DEFAULT_EMBEDDING_TIMEOUT_MS, type Embedder } from '../embed/index.js';
import { InvalidOptionError } from '../errors/index.js';
import type { Logger, MissCause } from '../monitor/fail-open.js';
import type { HnswOptions } from '../vector-index/index.js';
import { DEFAULT_LOOP_HINT, DEFAULT_LOOP_STOP_MESSAGE, DEFAULT_LOOP_STRONGER_HINT } from './hints.js';
import { createExemptionTest, type ExemptionTest, type LoopExemption } from './exempt.js';
import { DEFAULT_VOLATILE_PATTERNS } from './normalize.js';

/** Cosine similarity above which two steps are the same step in other words. */
export const DEFAULT_LOOP_THRESHOLD = 0.95;
/** Recent steps of a session each new step is compared with. */
export const DEFAULT_LOOP_WINDOW = 5;
/** Age after which a step no longer counts, and an untouched session is forgotten: one hour. */
export const DEFAULT_LOOP_TTL_MS = 3_600_000;
/** Sessions held at once; past it the least recently used is forgotten. */
export const DEFAULT_LOOP_MAX_SESSIONS = 10_000;
/** Consecutive identical calls with identical results that make a `repeated-action` loop. */
export const DEFAULT_REPEATED_ACTION = 4;
/**
 * An earlier warning at this many identical calls, before `repeatedAction` (Cline warns at the 3rd): off by default,
 * since the 3rd identical call is often a fair retry.
 */
export const DEFAULT_REPEATED_ACTION_WARNING = false;
/** Consecutive identical calls that fail that make a `repeated-error` loop. */
export const DEFAULT_REPEATED_ERROR = 3;
/** Consecutive identical text-only steps that make a `monologue`. */
export const DEFAULT_MONOLOGUE = 3;
/** Steps alternating between two that make an `alternation`. */
export const DEFAULT_ALTERNATION = 6;
/** Longest cycle of tool calls looked for, and the repetitions that make a `tool-cycle`. */
export const DEFAULT_TOOL_CYCLE = Object.freeze({ maxLength: 5, repetitions: 5 });
/**
 * Passage length, back-to-back repetitions within one response, and the furthest apart two copies may start, that
 * make `repeated-text`: Gemini CLI's loop detection values (50-character chunks, 10 repeats, within 5 chunks).
 */
export const DEFAULT_REPEATED_TEXT = Object.freeze({ chunkSize: 50, repetitions: 10, spacing: 250 });
/** Calls to tools that are not offered that get a hint naming the tools that exist, and that stop the run. */
export const DEFAULT_UNKNOWN_TOOL = Object.freeze({ hintAt: 2, stopAt: 3 });
/** Consecutive calls to one tool, with varying arguments and the same result, that make `unchanged-result`. */
export const DEFAULT_UNCHANGED_RESULT = 4;
/** Context condensations in a row without a tool making progress that make `condensation` (OpenHands' 10). */
export const DEFAULT_CONDENSATION = 10;
/** Times one line may appear in a response and its reasoning before it is `repeated-line`. */
export const DEFAULT_REPEATED_LINE = 5;
/** Detection of one loop that gets the stronger hint, and the one that stops the run. */
export const DEFAULT_LOOP_ESCALATION = Object.freeze({ strongerHintAt: 2, stopAt: 3 });

/** The long window: a vector index over many past steps of a session, for loops longer than `window` steps. */
export interface LongWindowOptions {
  /**
   * Past steps of a session compared, at least: the window holds between `size` and `2 x size` steps, because old
   * steps leave in blocks of `size` (deleting single points from an HNSW graph costs about three insertions). Memory:
   * up to `2 x size x dimensions x 4` bytes per session, plus the graph's links.
   */
  size: number;
  /**
   * Index algorithm; see `createVectorIndex`. `auto` scans exactly up to 256 steps, then moves to HNSW.
   * @default 'auto'
   */
  kind?: 'auto' | 'hnsw' | 'brute-force';
  /**
   * HNSW tuning; unset fields take the long window's defaults, lighter than the vector index's because every step
   * is inserted on the model-call path.
   * @default DEFAULT_LONG_WINDOW_HNSW ({ efConstruction: 64, efSearch: 40 }, m 16)
   */
  hnsw?: HnswOptions;
}

/** The slice of a miss counter the detector writes to; pass the monitor's so failures are logged once across both. */
export interface LoopMissCounter {
  record(cause: MissCause, message: string, error?: unknown): void;
  counts(): Readonly<Partial<Record<MissCause, number>>>;
}

/** Options of {@link createLoopDetector}. Every threshold can be set, and every structural check turned off with `false`. */
export interface LoopDetectorOptions {
  /**
   * Embeds each step for the semantic check; any LangChain embeddings object works. Without one, only the structural
   * checks run.
   * @default undefined
   */
  embedder?: Embedder;
  /**
   * Cosine similarity above which a step repeats an earlier one (strictly above). Word-for-word repeats are not
   * compared: the structural checks judge those, with their own thresholds.
   * @default 0.95
   */
  threshold?: number;
  /**
   * Earlier steps of the same session and tenant each step is compared with.
   * @default 5
   */
  window?: number;
  /**
   * Age in milliseconds after which a step is no longer compared, and after which an untouched session (history,
   * escalation counts, pending hint) is forgotten. Read from `clock`.
   * @default 3_600_000 (1 hour)
   */
  ttlMs?: number;
  /**
   * Also compares each step with at least `size` older steps of the session through a vector index, for loops
   * longer than `window` steps. Needs `embedder`.
   * @default undefined (off)
   */
  longWindow?: LongWindowOptions;
  /**
   * Budget of one step's embedding in milliseconds; past it the step is checked structurally only (fail-open).
   * @default 50
   */
  timeoutMs?: number;
  /**
   * Length of the embedder's vectors, when known; otherwise learnt from the first vector.
   * @default undefined
   */
  dimensions?: number;
  /**
   * Sessions held at once; past it the least recently used one is forgotten.
   * @default 10_000
   */
  maxSessions?: number;
  /**
   * The same tool call (name and canonical arguments) this many times in a row, with identical results or none known
   * yet, is a `repeated-action` loop, reported when the call is made (before it runs). Identical calls whose results
   * differ are left to `toolCycle`.
   * @default 4
   */
  repeatedAction?: number | false;
  /**
   * A one-off warning hint at this many identical calls, before `repeatedAction` reports; it never hastens the stop.
   * Cline warns at 3.
   * @default false (off)
   */
  repeatedActionWarning?: number | false;
  /**
   * The same tool call failing this many times in a row is a `repeated-error` loop.
   * @default 3
   */
  repeatedError?: number | false;
  /**
   * The same text-only response this many times in a row, with nothing in between, is a `monologue`.
   * @default 3
   */
  monologue?: number | false;
  /**
   * This many steps alternating between two (A, B, A, B, ...) are an `alternation`.
   * @default 6
   */
  alternation?: number | false;
  /**
   * A sequence of 1 to `maxLength` tool calls repeated `repetitions` times in a row is a `tool-cycle`.
   * @default { maxLength: 5, repetitions: 5 }
   */
  toolCycle?: { maxLength?: number; repetitions?: number } | false;
  /**
   * A passage repeated back to back `repetitions` times within one response is `repeated-text`. A passage shorter
   * than `chunkSize` characters counts only once its repetitions cover `repetitions x chunkSize` characters; a
   * passage longer than `spacing` characters (copies starting further apart) is never counted.
   * @default { chunkSize: 50, repetitions: 10, spacing: 250 }
   */
  repeatedText?: { chunkSize?: number; repetitions?: number; spacing?: number } | false;
  /**
   * The same line (case and whitespace aside) this many times anywhere in one response or its reasoning is
   * `repeated-line`. Prose lines of 12 characters or more only: code, tables, lists and headings are not counted.
   * @default 5
   */
  repeatedLine?: number | false;
  /**
   * Calls to tools that are not offered (see `tools` and {@link LoopStep.availableTools}): at `hintAt` calls a hint
   * naming the tools that exist, at `stopAt` the run is stopped, whatever `escalation` says.
   * @default { hintAt: 2, stopAt: 3 }
   */
  unknownTool?: { hintAt?: number; stopAt?: number } | false;
  /**
   * The names of the tools offered to the model, for `unknownTool`, when every call offers the same ones; a step's
   * `availableTools` takes precedence. Without either, `unknownTool` does not run.
   * @default undefined
   */
  tools?: readonly string[];
  /**
   * This many calls in a row to one tool, with arguments that vary and the same result each time, are an
   * `unchanged-result` loop.
   * @default 4
   */
  unchangedResult?: number | false;
  /**
   * This many context condensations in a row (steps with `condensed: true`, or `monitor.observeCondensation`) without
   * a tool call making progress (succeeding with a result not seen before) are a `condensation` loop.
   * @default 10
   */
  condensation?: number | false;
  /**
   * Whether a step with `userTurn: true` (the monitor sends one on each new user message) starts the structural
   * checks afresh: their counts and their escalation, and drops a pending stop. The semantic window keeps its history.
   * @default true
   */
  scopeToUserTurn?: boolean;
  /**
   * Tools that legitimately repeat (polling, waiting). Their calls are never compared; a step with only such calls
   * is skipped entirely (and breaks a monologue).
   * @default []
   */
  exemptTools?: readonly string[];
  /**
   * Calls that legitimately repeat, by tool name or by action: `{ tool: 'browser', when: (args) =>
   * String(args.action).startsWith('scroll') }` exempts scrolling and still checks a repeated click. Exempt calls are
   * treated as `exemptTools` calls; a `when` that throws leaves the call checked. Adds to `exemptTools`.
   * @default []
   */
  exempt?: readonly LoopExemption[];
  /**
   * Property names dropped at any depth before tool arguments and results are compared (`requestId`, `timestamp`).
   * @default []
   */
  ignoreKeys?: readonly string[];
  /**
   * Values replaced by a placeholder before texts and tool results are compared.
   * @default DEFAULT_VOLATILE_PATTERNS (UUIDs, ISO timestamps, epoch milliseconds, long hex ids)
   */
  volatilePatterns?: readonly RegExp[];
  /**
   * Whether `volatilePatterns` also apply to tool arguments. Off by default: `get_order(id: <uuid-1>)` and
   * `get_order(id: <uuid-2>)` are different calls.
   * @default false
   */
  normalizeArguments?: boolean;
  /**
   * The first hint for the model; `{detail}` is replaced by what repeated.
   * @default DEFAULT_LOOP_HINT
   */
  hint?: string;
  /**
   * The hint when the same loop is detected again; `{detail}` as for `hint`.
   * @default DEFAULT_LOOP_STRONGER_HINT
   */
  strongerHint?: string;
  /**
   * The reason given when the run is stopped; `{detail}` as for `hint`.
   * @default DEFAULT_LOOP_STOP_MESSAGE
   */
  stopMessage?: string;
  /**
   * Which detection of the same loop in a session gets the stronger hint, and which stops the run (`Infinity`:
   * never stop).
   * @default { strongerHintAt: 2, stopAt: 3 }
   */
  escalation?: { strongerHintAt?: number; stopAt?: number };
  /** Where time is read (step ages, session expiry). @default systemClock */
  clock?: Clock;
  /** Timer functions for the embedding budget, replaceable in tests. @default systemTimers */
  timers?: Timers;
  /** Receives Panoptes' own failures, once per cause. @default console */
  logger?: Logger;
  /** Counts the failures instead of a counter of the detector's own (the monitor passes its own). @default a new counter over `logger` */
  missCounter?: LoopMissCounter;
  /** Where loop reports go as `panoptes.loop` spans (docs/telemetry.md). @default the global tracer provider's */
  tracer?: Tracer;
  /** Where loop counts and check durations go. @default the global meter provider's */
  meter?: Meter;
  /** `false` turns the detector's spans and metrics off. @default true */
  telemetry?: boolean;
}

/** The options after defaults and validation. @internal */
export interface ResolvedLoopOptions {
  embedder: Embedder | undefined;
  threshold: number;
  window: number;
  ttlMs: number;
  longWindow: Required<LongWindowOptions> | undefined;
  timeoutMs: number;
  dimensions: number | undefined;
  maxSessions: number;
  repeatedAction: number | false;
  repeatedActionWarning: number | false;
  repeatedError: number | false;
  monologue: number | false;
  alternation: number | false;
  toolCycle: { maxLength: number; repetitions: number } | false;
  repeatedText: { chunkSize: number; repetitions: number; spacing: number } | false;
  repeatedLine: number | false;
  unknownTool: { hintAt: number; stopAt: number } | false;
  tools: readonly string[] | undefined;
  unchangedResult: number | false;
  condensation: number | false;
  scopeToUserTurn: boolean;
  isExempt: ExemptionTest;
  ignoreKeys: ReadonlySet<string>;
  volatilePatterns: readonly RegExp[];
  normalizeArguments: boolean;
  texts: { hint: string; 'stronger-hint': string; stop: string };
  escalation: { strongerHintAt: number; stopAt: number };
  clock: Clock;
  timers: Timers;
  logger: Logger;
  missCounter: LoopMissCounter | undefined;
}

const KNOWN_OPTIONS = [
  'embedder', 'threshold', 'window', 'ttlMs', 'longWindow', 'timeoutMs', 'dimensions', 'maxSessions', 'repeatedAction',
  'repeatedError', 'monologue', 'alternation', 'toolCycle', 'repeatedText', 'exemptTools', 'ignoreKeys',
  'volatilePatterns', 'normalizeArguments', 'hint', 'strongerHint', 'stopMessage', 'escalation', 'clock', 'timers',
  'logger', 'missCounter', 'tracer', 'meter', 'telemetry',
  'repeatedActionWarning', 'exempt', 'repeatedLine', 'unknownTool', 'tools', 'unchangedResult', 'condensation',
  'scopeToUserTurn',
] as const satisfies readonly (keyof LoopDetectorOptions)[];

/** Longest tool cycle that may be looked for: each step checks every length up to it, so it bounds the cost. */
const MAX_CYCLE_LENGTH = 20;

/**
 * Applies the defaults and checks every option, so a bad configuration fails when the detector is built, not on the
 * hundredth step.
 * @throws {InvalidOptionError} naming the option, the value received and the fix.
 * @internal
 */
export function resolveLoopOptions(options: LoopDetectorOptions): ResolvedLoopOptions {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError({ parameter: 'options', value: options, fix: 'Pass an options object, such as {} for the defaults.' });
  }
  rejectUnknown(options);
  const {
    embedder,
    threshold = DEFAULT_LOOP_THRESHOLD,
    window = DEFAULT_LOOP_WINDOW,
    ttlMs = DEFAULT_LOOP_TTL_MS,
    longWindow,
    timeoutMs = DEFAULT_EMBEDDING_TIMEOUT_MS,
    dimensions,
    maxSessions = DEFAULT_LOOP_MAX_SESSIONS,
    repeatedAction = DEFAULT_REPEATED_ACTION,
    repeatedActionWarning = DEFAULT_REPEATED_ACTION_WARNING,
    repeatedError = DEFAULT_REPEATED_ERROR,
    monologue = DEFAULT_MONOLOGUE,
    alternation = DEFAULT_ALTERNATION,
    toolCycle = {},
    repeatedText = {},
    exemptTools = [],
    exempt = [],
    repeatedLine = DEFAULT_REPEATED_LINE,
    unknownTool = {},
    tools,
    unchangedResult = DEFAULT_UNCHANGED_RESULT,
    condensation = DEFAULT_CONDENSATION,
    scopeToUserTurn = true,
    ignoreKeys = [],
    volatilePatterns = DEFAULT_VOLATILE_PATTERNS,
    normalizeArguments = false,
    hint = DEFAULT_LOOP_HINT,
    strongerHint = DEFAULT_LOOP_STRONGER_HINT,
    stopMessage = DEFAULT_LOOP_STOP_MESSAGE,
    escalation = {},
    clock = systemClock,
    timers = systemTimers,
    logger = console,
    missCounter,
  } = options;

  if (embedder !== undefined && !(typeof embedder === 'object' && embedder !== null && typeof embedder.embedQuery === 'function')) {
    throw new InvalidOptionError({
      parameter: 'embedder',
      value: embedder,
      fix: 'Pass an object with embedQuery(text) and embedDocuments(texts), such as createLexicalEmbedder() or any LangChain embeddings object.',
    });
  }
  if (!(typeof threshold === 'number' && threshold > 0 && threshold <= 1)) {
    throw new InvalidOptionError({ parameter: 'threshold', value: threshold, fix: 'Pass a cosine similarity in (0, 1]; the default is 0.95.' });
  }
  integer('window', window, 1, 'Pass a whole number of steps of at least 1; the default is 5.');
  positive('ttlMs', ttlMs, 'Pass a positive number of milliseconds; the default is 3600000 (one hour).');
  positive('timeoutMs', timeoutMs, 'Pass a positive number of milliseconds; the default is 50.');
  if (dimensions !== undefined) integer('dimensions', dimensions, 1, 'Pass the embedder’s vector length, such as 384, or omit it to learn it from the first vector.');
  integer('maxSessions', maxSessions, 1, 'Pass a whole number of sessions of at least 1; the default is 10000.');
  const countOrOff = (parameter: string, value: unknown, minimum: number, byDefault: number) => {
    if (value === false) return;
    integer(parameter, value, minimum, `Pass a whole number of at least ${minimum}, or false to turn this check off; the default is ${byDefault}.`);
  };
  countOrOff('repeatedAction', repeatedAction, 2, DEFAULT_REPEATED_ACTION);
  countOrOff('repeatedError', repeatedError, 2, DEFAULT_REPEATED_ERROR);
  if (repeatedActionWarning !== false) {
    integer('repeatedActionWarning', repeatedActionWarning, 2, 'Pass a whole number of calls of at least 2, such as 3, or false (the default) for no early warning.');
  }
  countOrOff('monologue', monologue, 2, DEFAULT_MONOLOGUE);
  countOrOff('alternation', alternation, 4, DEFAULT_ALTERNATION);
  countOrOff('repeatedLine', repeatedLine, 2, DEFAULT_REPEATED_LINE);
  countOrOff('unchangedResult', unchangedResult, 2, DEFAULT_UNCHANGED_RESULT);
  countOrOff('condensation', condensation, 1, DEFAULT_CONDENSATION);

  return {
    embedder,
    threshold,
    window,
    ttlMs,
    longWindow: resolveLongWindow(longWindow, embedder),
    timeoutMs,
    dimensions,
    maxSessions,
    repeatedAction,
    repeatedActionWarning,
    repeatedError,
    monologue,
    alternation,
    toolCycle: resolveToolCycle(toolCycle),
    repeatedText: resolveRepeatedText(repeatedText),
    repeatedLine,
    unknownTool: resolveUnknownTool(unknownTool),
    tools: tools === undefined ? undefined : stringList('tools', tools, "Pass an array of the tool names offered to the model, such as ['search', 'book']"),
    unchangedResult,
    condensation,
    scopeToUserTurn: flag('scopeToUserTurn', scopeToUserTurn),
    isExempt: createExemptionTest('exempt', [...stringList('exemptTools', exemptTools, "Pass an array of tool names, such as ['check_status']"), ...exemptionList(exempt)]),
    ignoreKeys: new Set(stringList('ignoreKeys', ignoreKeys, "Pass an array of property names, such as ['requestId', 'timestamp']")),
    volatilePatterns: regexList(volatilePatterns),
    normalizeArguments: flag('normalizeArguments', normalizeArguments),
    texts: { hint: text('hint', hint), 'stronger-hint': text('strongerHint', strongerHint), stop: text('stopMessage', stopMessage) },
    escalation: resolveEscalation(escalation),
    clock: shaped('clock', clock, ['now'], 'Pass an object with now(), such as systemClock or createFakeClock().'),
    timers: shaped('timers', timers, ['setTimeout', 'clearTimeout'], 'Pass an object with setTimeout and clearTimeout, such as systemTimers.'),
    logger: shaped('logger', logger, ['warn'], 'Pass an object with warn(message), such as console.'),
    missCounter: missCounter === undefined ? undefined : shaped('missCounter', missCounter, ['record', 'counts'], 'Pass the object createMissCounter() returns.'),
  };
}

function rejectUnknown(options: object): void {
  const known: readonly string[] = KNOWN_OPTIONS;
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const suggestion = didYouMean(key, known);
    throw new InvalidOptionError({
      parameter: key,
      value: (options as Record<string, unknown>)[key],
      fix: `createLoopDetector has no such option${suggestion ? ` (${suggestion})` : ''}. Known options: ${known.join(', ')}.`,
    });
  }
}

function resolveLongWindow(longWindow: LongWindowOptions | undefined, embedder: Embedder | undefined): Required<LongWindowOptions> | undefined {
  if (longWindow === undefined) return undefined;
  if (typeof longWindow !== 'object' || longWindow === null) {
    throw new InvalidOptionError({ parameter: 'longWindow', value: longWindow, fix: 'Pass an object such as { size: 1000 }, or omit it.' });
  }
  if (embedder === undefined) {
    throw new InvalidOptionError({ parameter: 'longWindow', value: longWindow, fix: 'The long window compares embeddings: pass an `embedder` too, or omit `longWindow`.' });
  }
  const { size, kind = 'auto', hnsw = {} } = longWindow;
  integer('longWindow.size', size, 1, 'Pass the number of past steps to keep per session, such as 1000.');
  if (!['auto', 'hnsw', 'brute-force'].includes(kind)) {
    throw new InvalidOptionError({ parameter: 'longWindow.kind', value: kind, fix: "Pass 'auto', 'hnsw' or 'brute-force'; the default is 'auto'." });
  }
  for (const key of ['m', 'efConstruction', 'efSearch'] as const) {
    if (hnsw[key] !== undefined) integer(`longWindow.hnsw.${key}`, hnsw[key], 1, 'Pass a positive whole number, or omit it for the default.');
  }
  if (hnsw.randomSeed !== undefined && !Number.isInteger(hnsw.randomSeed)) {
    throw new InvalidOptionError({ parameter: 'longWindow.hnsw.randomSeed', value: hnsw.randomSeed, fix: 'Pass a whole number.' });
  }
  return { size, kind, hnsw };
}

function resolveToolCycle(value: LoopDetectorOptions['toolCycle']): ResolvedLoopOptions['toolCycle'] {
  if (value === false) return false;
  if (typeof value !== 'object' || value === null) {
    throw new InvalidOptionError({ parameter: 'toolCycle', value, fix: 'Pass { maxLength, repetitions }, or false to turn this check off.' });
  }
  const { maxLength = DEFAULT_TOOL_CYCLE.maxLength, repetitions = DEFAULT_TOOL_CYCLE.repetitions } = value;
  integer('toolCycle.maxLength', maxLength, 1, `Pass a whole number of calls from 1 to ${MAX_CYCLE_LENGTH}; the default is 5.`);
  if (maxLength > MAX_CYCLE_LENGTH) {
    throw new InvalidOptionError({ parameter: 'toolCycle.maxLength', value: maxLength, fix: `Pass a whole number of calls from 1 to ${MAX_CYCLE_LENGTH}; the default is 5.` });
  }
  integer('toolCycle.repetitions', repetitions, 2, 'Pass a whole number of at least 2; the default is 5.');
  return { maxLength, repetitions };
}

function resolveRepeatedText(value: LoopDetectorOptions['repeatedText']): ResolvedLoopOptions['repeatedText'] {
  if (value === false) return false;
  if (typeof value !== 'object' || value === null) {
    throw new InvalidOptionError({ parameter: 'repeatedText', value, fix: 'Pass { chunkSize, repetitions, spacing }, or false to turn this check off.' });
  }
  const { chunkSize = DEFAULT_REPEATED_TEXT.chunkSize, repetitions = DEFAULT_REPEATED_TEXT.repetitions, spacing = DEFAULT_REPEATED_TEXT.spacing } = value;
  integer('repeatedText.chunkSize', chunkSize, 1, 'Pass a whole number of characters of at least 1; the default is 50.');
  integer('repeatedText.repetitions', repetitions, 2, 'Pass a whole number of at least 2; the default is 10.');
  if (spacing !== Infinity) integer('repeatedText.spacing', spacing, 1, 'Pass a whole number of characters of at least 1, or Infinity for no limit; the default is 250.');
  return { chunkSize, repetitions, spacing };
}

function resolveUnknownTool(value: LoopDetectorOptions['unknownTool']): ResolvedLoopOptions['unknownTool'] {
  if (value === false) return false;
  if (typeof value !== 'object' || value === null) {
    throw new InvalidOptionError({ parameter: 'unknownTool', value, fix: 'Pass { hintAt, stopAt }, such as { hintAt: 2, stopAt: 3 }, or false to turn this check off.' });
  }
  const { hintAt = DEFAULT_UNKNOWN_TOOL.hintAt, stopAt = DEFAULT_UNKNOWN_TOOL.stopAt } = value;
  integer('unknownTool.hintAt', hintAt, 1, 'Pass the number of calls to unknown tools that gets a hint, such as 2.');
  if (stopAt !== Infinity) integer('unknownTool.stopAt', stopAt, 1, 'Pass the number of calls to unknown tools that stops the run, such as 3, or Infinity to never stop.');
  if (stopAt < hintAt) {
    throw new InvalidOptionError({ parameter: 'unknownTool.stopAt', value: stopAt, fix: `Pass a number no smaller than unknownTool.hintAt (${hintAt}).` });
  }
  return { hintAt, stopAt };
}

function resolveEscalation(value: LoopDetectorOptions['escalation']): ResolvedLoopOptions['escalation'] {
  if (typeof value !== 'object' || value === null) {
    throw new InvalidOptionError({ parameter: 'escalation', value, fix: 'Pass { strongerHintAt, stopAt }, such as { strongerHintAt: 2, stopAt: 3 }.' });
  }
  const { strongerHintAt = DEFAULT_LOOP_ESCALATION.strongerHintAt, stopAt = DEFAULT_LOOP_ESCALATION.stopAt } = value;
  integer('escalation.strongerHintAt', strongerHintAt, 1, 'Pass the detection number that gets the stronger hint, such as 2.');
  if (stopAt !== Infinity) integer('escalation.stopAt', stopAt, 1, 'Pass the detection number that stops the run, such as 3, or Infinity to never stop.');
  if (stopAt < strongerHintAt) {
    throw new InvalidOptionError({ parameter: 'escalation.stopAt', value: stopAt, fix: `Pass a number no smaller than escalation.strongerHintAt (${strongerHintAt}).` });
  }
  return { strongerHintAt, stopAt };
}

function integer(parameter: string, value: unknown, minimum: number, fix: string): void {
  if (!(typeof value === 'number' && Number.isInteger(value) && value >= minimum)) throw new InvalidOptionError({ parameter, value, fix });
}

function positive(parameter: string, value: unknown, fix: string): void {
  if (!(typeof value === 'number' && Number.isFinite(value) && value > 0)) throw new InvalidOptionError({ parameter, value, fix });
}

function flag(parameter: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new InvalidOptionError({ parameter, value, fix: 'Pass true or false.' });
  return value;
}

function text(parameter: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidOptionError({ parameter, value, fix: 'Pass a non-empty text; `{detail}` in it is replaced by what repeated.' });
  }
  return value;
}

function stringList(parameter: string, value: unknown, fix: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new InvalidOptionError({ parameter, value, fix: `${fix}, or [] for none.` });
  return value;
}

function exemptionList(value: unknown): unknown[] {
  createExemptionTest('exempt', value); // validates, naming `exempt`
  return value as unknown[];
}

function regexList(value: unknown): readonly RegExp[] {
  if (!Array.isArray(value) || !value.every((item) => item instanceof RegExp)) {
    throw new InvalidOptionError({ parameter: 'volatilePatterns', value, fix: 'Pass an array of regular expressions, such as [...DEFAULT_VOLATILE_PATTERNS, /order-\\d+/g], or [] for none.' });
  }
  return value;
}

function shaped<T>(parameter: string, value: T, methods: readonly string[], fix: string): T {
  const ok = typeof value === 'object' && value !== null && methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function');
  if (!ok) throw new InvalidOptionError({ parameter, value, fix });
  return value;
}
