import { DEFAULT_MAX_ATOM_CHARS, extractAtoms, normaliseText, scanAtoms, type Atom, type AtomOptions } from './atoms.js';

/**
 * Whether a source's content may steer the agent's actions. A `directory` lists destinations that exist (users,
 * contacts, channels): a value equal to one of its entries is known, whoever else names it; anything else in it (a
 * link inside a channel's name) is untrusted text.
 */
export type Trust = 'trusted' | 'untrusted' | 'directory';

/** Where a value came from: a tool result (or one part of it), a user message or the system prompt. */
export interface ProvenanceSource {
  /** 1, 2, ...: the order results and messages entered the session (the trusted and untrusted parts of one result share it). */
  readonly step: number;
  readonly kind: 'tool' | 'user' | 'system';
  /** The tool whose result this is (`kind: 'tool'`). */
  readonly tool?: string;
  readonly trust: Trust;
  /** Clock time it was recorded. */
  readonly at: number;
}

/** One place a value was found: the source, and for a structured tool result the key path of the field. */
export interface Occurrence {
  source: ProvenanceSource;
  /** Dotted keys of the field in the result (`transactions.subject`), list indexes left out; '' for the whole text. */
  path: string;
  /** The atom as normalised, or the text found (for a value that has no atoms). */
  atom: string;
}

/** The trust of one field of a tool result, from the rulebase's `source` declarations and the default. */
export type TrustOf = (tool: string, path: readonly string[]) => Trust;

/** Options of {@link createProvenanceLog}. */
export interface ProvenanceLogOptions extends AtomOptions {
  /**
   * Atoms kept from one result or message; past it the result counts as cut (an untrusted one fails the log closed,
   * counted in `stats.truncated`). It is what bounds the time a dense result costs: about 1 us per atom.
   * @default 2000
   */
  maxAtoms?: number;
  /** Atom occurrences kept per session; past it, untrusted content is assumed to hold every value. @default 200000 */
  maxOccurrences?: number;
  /** Characters of text kept per session for values that have no atoms (names, titles). @default 8388608 */
  maxTextChars?: number;
  /** Clock time, for `at`. @default Date.now */
  now?: () => number;
}

/** Counters of what the log could not keep: the figures to watch when tool outputs are huge. */
export interface ProvenanceStats {
  sources: number;
  occurrences: number;
  /** Results or messages cut to `maxChars`, or that gave more than `maxAtoms` atoms. */
  truncated: number;
  /** Untrusted content whose atoms or text did not fit the session's budget. */
  overflowed: number;
  /** Results the log failed to read (never thrown into the agent). */
  failures: number;
}

/**
 * The session's record of where values came from. Every tool result is a source with a trust level, every user
 * message and the system prompt are trusted sources; values are indexed as atoms, and the text is kept (bounded) to
 * find values that are not atoms. Recording never throws.
 */
export interface ProvenanceLog {
  /**
   * Records a tool result; its fields' trust comes from `trustOf`. Returns the sources made (one per trust level).
   * With the call's `args`, a field that only repeats one of them (a sent mail's body, a created event's title) is
   * not a source: it tells the agent nothing it did not write itself, and its values keep the provenance they had.
   */
  recordToolResult(tool: string, result: unknown, trustOf: TrustOf, args?: unknown): ProvenanceSource[];
  /** Records a user message or the system prompt (trusted); a text recorded before is not recorded again. */
  recordMessage(kind: 'user' | 'system', text: string): ProvenanceSource | undefined;
  /** Where a value (a tool argument: a string, a number, a list of them) occurs, in the order of the sources. */
  occurrences(value: unknown): Occurrence[][];
  /** Where one candidate of {@link candidatesOf} occurs: an atom by its key, other text as a whole word or phrase. */
  lookup(candidate: { key: string; atom: boolean }): Occurrence[];
  /** Whether a value (normalised, any case) is a whole entry of a directory result. */
  isDirectoryEntry(value: string): boolean;
  /** Whether any untrusted source has been recorded: untrusted content is in the model's context. */
  hasUntrusted(): boolean;
  /** The untrusted sources, oldest first. */
  untrustedSources(): ProvenanceSource[];
  /** The log as plain JSON, for a fact store's snapshot. */
  toJSON(): ProvenanceSnapshot;
  /** Whether untrusted content was lost to the budget (then every value not given by a trusted source counts as untrusted). */
  readonly overflowed: boolean;
  readonly stats: Readonly<ProvenanceStats>;
}

/** A provenance log as plain JSON: its sources, and what each holds by index into `sources`. */
export interface ProvenanceSnapshot {
  steps: number;
  sources: ProvenanceSource[];
  /** `[atom, source index, field path]`. */
  occurrences: Array<[string, number, string]>;
  /** `[source index, field path, normalised text]`. */
  texts: Array<[number, string, string]>;
  entries: string[];
  messages: string[];
  overflowed: boolean;
}

/** Default of `ProvenanceLogOptions.maxAtoms`. */
export const DEFAULT_MAX_RESULT_ATOMS = 2_000;
/** Default of `ProvenanceLogOptions.maxOccurrences`. */
export const DEFAULT_MAX_OCCURRENCES = 200_000;
/** Default of `ProvenanceLogOptions.maxTextChars`. */
export const DEFAULT_MAX_TEXT_CHARS = 8 * 1_048_576;
const MAX_WALK_DEPTH = 32;
/** Longest directory entry kept: names and addresses, not prose. */
const MAX_ENTRY_LENGTH = 256;
/** Longest argument matched as a whole (a name, a title, a channel): prose is not a destination, its atoms are. */
const MAX_PHRASE_LENGTH = 80;
const MAX_LEAVES = 20_000;
/** Longest argument compared with a result's fields as an echo (a mail body fits; a whole document need not). */
const MAX_ECHO_CHARS = 65_536;

/** One field of one source: where an indexed atom was found. */
interface Part {
  source: ProvenanceSource;
  path: string;
}

/** A part's text, kept for values that are not atoms; normalised the first time a value is looked for in it. */
interface TextPart extends Part {
  text: string;
  normalised: boolean;
}

/**
 * Creates a provenance log; a fact store owns one per session.
 * @example
 * const log = createProvenanceLog();
 * log.recordMessage('user', 'Pay the bill in bill.txt');
 * log.recordToolResult('read_file', 'Pay to US133000000121212121212', () => 'untrusted');
 * log.occurrences('US133000000121212121212'); // [[{ source: { tool: 'read_file', trust: 'untrusted', ... }, ... }]]
 */
export function createProvenanceLog(
  { maxOccurrences = DEFAULT_MAX_OCCURRENCES, maxTextChars = DEFAULT_MAX_TEXT_CHARS, now = Date.now, ...atomOptions }: ProvenanceLogOptions = {},
  snapshot?: ProvenanceSnapshot,
): ProvenanceLog {
  const sources: ProvenanceSource[] = [];
  const parts: Part[] = [];
  // Atom -> the parts holding it, oldest first: one part's number alone (most atoms are in one place), else a list.
  // Numbers, not occurrence objects: a dense result indexes thousands of atoms, and only a lookup needs the objects.
  const index = new Map<string, number | number[]>();
  const texts: TextPart[] = [];
  const messages = new Set<string>();
  const entries = new Set<string>();
  const stats: ProvenanceStats = { sources: 0, occurrences: 0, truncated: 0, overflowed: 0, failures: 0 };
  let textChars = 0;
  let steps = 0;
  let overflowed = false;

  const newSource = (step: number, kind: ProvenanceSource['kind'], trust: Trust, tool?: string): ProvenanceSource => {
    const source: ProvenanceSource = Object.freeze({ step, kind, trust, at: now(), ...(tool !== undefined ? { tool } : {}) });
    sources.push(source);
    stats.sources++;
    return source;
  };

  const lose = (source: ProvenanceSource) => {
    if (source.trust !== 'trusted') {
      overflowed = true;
      stats.overflowed++;
    }
  };

  const maxAtoms = atomOptions.maxAtoms ?? DEFAULT_MAX_RESULT_ATOMS;
  const indexText = (source: ProvenanceSource, path: string, text: string, maxChars = atomOptions.maxChars ?? DEFAULT_MAX_ATOM_CHARS) => {
    const part = parts.push({ source, path }) - 1;
    let kept = 0;
    let budgetSpent = false;
    // Each atom goes straight into the index (no list of atoms in between); the index itself tells an atom this part
    // already holds, since this part is the last one added to any entry. Quoted strings and amounts are never looked
    // up (an argument is matched by the atoms that name something, or as a phrase in the kept text): not indexed.
    const truncated = scanAtoms(text, { ...atomOptions, maxChars }, (_kind, value) => {
      const entry = index.get(value);
      if (entry === part || (typeof entry === 'object' && entry[entry.length - 1] === part)) return true;
      if (kept >= maxAtoms) return false;
      if (stats.occurrences >= maxOccurrences) {
        budgetSpent = true;
        return false;
      }
      if (entry === undefined) index.set(value, part);
      else if (typeof entry === 'number') index.set(value, [entry, part]);
      else entry.push(part);
      kept++;
      stats.occurrences++;
      return true;
    }, { descriptive: false });
    if (truncated) {
      if (!budgetSpent) stats.truncated++;
      lose(source);
    }
    // Kept as given and normalised only when a value is first looked for in it (most results never are), so recording
    // does not copy the text twice more. Counted at its length as given: normalising collapses white space.
    if (textChars + text.length > maxTextChars) {
      lose(source);
      return;
    }
    textChars += text.length;
    texts.push({ source, path, text, normalised: false });
  };

  const log: ProvenanceLog = {
    recordToolResult(tool, result, trustOf, args) {
      try {
        const maxChars = atomOptions.maxChars ?? DEFAULT_MAX_ATOM_CHARS;
        const { leaves, complete } = leavesOf(structured(result, maxChars));
        const step = ++steps;
        const made = new Map<Trust, ProvenanceSource>();
        const parts = new Map<string, { source: ProvenanceSource; chunks: string[] }>();
        const echoes = echoesOf(args);
        for (const leaf of leaves) {
          const trust = safeTrust(trustOf, tool, leaf.path);
          // An echo is no source; but a directory listing the value is news: it says the value exists.
          if (trust !== 'directory' && echoes.longest > 0 && leaf.text.length <= echoes.longest * 2 && echoes.texts.has(normaliseText(leaf.text))) continue;
          if (trust === 'directory' && leaf.text.length <= MAX_ENTRY_LENGTH && entries.size < maxOccurrences) entries.add(normaliseText(leaf.text));
          let source = made.get(trust);
          if (!source) made.set(trust, (source = newSource(step, 'tool', trust, tool)));
          const path = leaf.path.join('.');
          const key = `${trust}\u0000${path}`;
          let part = parts.get(key);
          if (!part) parts.set(key, (part = { source, chunks: [] }));
          part.chunks.push(leaf.text);
        }
        // One budget of characters for the whole result, however many fields it has.
        let budget = maxChars;
        for (const [key, part] of parts) {
          const text = part.chunks.length === 1 ? part.chunks[0]! : part.chunks.join('\n');
          indexText(part.source, key.slice(key.indexOf('\u0000') + 1), text, Math.max(budget, 1));
          budget -= Math.min(text.length, budget);
        }
        if (!complete) {
          // Fields past the leaf bound were not read: whatever they said, assume it untrusted.
          stats.truncated++;
          stats.overflowed++;
          overflowed = true;
        }
        return [...made.values()];
      } catch {
        // Never into the agent; but a result that could not be read may have carried anything.
        stats.failures++;
        overflowed = true;
        return [];
      }
    },
    recordMessage(kind, text) {
      try {
        if (typeof text !== 'string' || text === '' || messages.has(text)) return undefined;
        messages.add(text);
        const source = newSource(++steps, kind, 'trusted');
        indexText(source, '', text);
        return source;
      } catch {
        stats.failures++;
        return undefined;
      }
    },
    occurrences(value) {
      const found: Occurrence[][] = [];
      for (const candidate of candidatesOf(value, atomOptions)) found.push(log.lookup(candidate));
      return found;
    },
    lookup(candidate) {
      if (!candidate.atom) return findText(texts, candidate.key);
      const entry = index.get(candidate.key);
      if (entry === undefined) return [];
      return (typeof entry === 'number' ? [entry] : entry).map((id) => ({ source: parts[id]!.source, path: parts[id]!.path, atom: candidate.key }));
    },
    isDirectoryEntry(value) {
      return entries.has(normaliseText(value));
    },
    hasUntrusted() {
      return overflowed || sources.some((source) => source.trust !== 'trusted' && source.kind === 'tool');
    },
    untrustedSources() {
      return sources.filter((source) => source.trust !== 'trusted' && source.kind === 'tool');
    },
    toJSON() {
      const indexOf = new Map(sources.map((source, position) => [source, position]));
      const occurrences: ProvenanceSnapshot['occurrences'] = [];
      for (const [atom, entry] of index) {
        for (const id of typeof entry === 'number' ? [entry] : entry) occurrences.push([atom, indexOf.get(parts[id]!.source)!, parts[id]!.path]);
      }
      return {
        steps,
        sources: [...sources],
        occurrences,
        texts: texts.map((part) => [indexOf.get(part.source)!, part.path, normalisedText(part)]),
        entries: [...entries],
        messages: [...messages],
        overflowed,
      };
    },
    get overflowed() {
      return overflowed;
    },
    get stats() {
      return stats;
    },
  };
  if (snapshot) restore(snapshot);
  return log;

  /** Takes a snapshot back; anything malformed in it makes the log fail closed (untrusted content assumed lost). */
  function restore(data: ProvenanceSnapshot): void {
    try {
      steps = data.steps;
      for (const source of data.sources) {
        sources.push(Object.freeze({ ...source }));
        stats.sources++;
      }
      const partOf = new Map<string, number>();
      for (const [atom, position, path] of data.occurrences) {
        const source = sources[position];
        if (!source || typeof atom !== 'string') throw new Error('bad occurrence');
        const key = `${position}\u0000${path}`;
        let part = partOf.get(key);
        if (part === undefined) partOf.set(key, (part = parts.push({ source, path }) - 1));
        const entry = index.get(atom);
        if (entry === undefined) index.set(atom, part);
        else if (typeof entry === 'number') index.set(atom, [entry, part]);
        else entry.push(part);
        stats.occurrences++;
      }
      for (const [position, path, text] of data.texts) {
        const source = sources[position];
        if (!source) throw new Error('bad source index');
        texts.push({ source, path, text, normalised: true });
        textChars += text.length;
      }
      for (const entry of data.entries) entries.add(entry);
      for (const message of data.messages) messages.add(message);
      overflowed = overflowed || data.overflowed === true;
    } catch {
      stats.failures++;
      overflowed = true;
    }
  }
}

/** Options of {@link candidatesOf}. */
export interface CandidateOptions extends AtomOptions {
  /**
   * Match a value with no atoms as a whole phrase. `false` for content sent out (a message body): it is sent somewhere
   * only through the links and addresses it carries, and a sentence copied from a source names no destination.
   * @default true
   */
  phrases?: boolean;
}

/**
 * What a tool argument is matched by: its atoms (only those written in it, not hosts derived from them), or, for a
 * value with none (a user name, a channel, a hotel), its whole normalised text. Lists give the candidates of each item.
 */
export function candidatesOf(value: unknown, { phrases = true, ...atomOptions }: CandidateOptions = {}): Array<{ key: string; atom: boolean; value: string }> {
  const candidates: Array<{ key: string; atom: boolean; value: string }> = [];
  const visit = (item: unknown, depth: number) => {
    if (depth > 4 || candidates.length > 200) return;
    if (Array.isArray(item)) return item.forEach((inner) => visit(inner, depth + 1));
    if (typeof item !== 'string') return;
    const text = item.trim();
    if (text.length < 2) return;
    const atoms: Atom[] = extractAtoms(text, { ...atomOptions, maxChars: 65_536, maxAtoms: 200 }).atoms;
    const written = atoms.filter((atom) => !atom.derived && atom.kind !== 'quantity' && atom.kind !== 'quoted');
    // An argument that is one bare host (`dora-website.com`) is matched as that host, wherever a URL carried it.
    const primary = written.length > 0 ? written : atoms.filter((atom) => atom.kind === 'host');
    if (primary.length > 0) for (const atom of primary) candidates.push({ key: atom.value, atom: true, value: text });
    else if (phrases && text.length >= 3 && text.length <= MAX_PHRASE_LENGTH) candidates.push({ key: normaliseText(text), atom: false, value: text });
  };
  visit(value, 0);
  return candidates;
}

/** The call's string arguments (and the strings in its list arguments), normalised: what a result field may echo. */
function echoesOf(args: unknown): { texts: Set<string>; longest: number } {
  const texts = new Set<string>();
  let longest = 0;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { texts, longest };
  const add = (value: unknown) => {
    if (typeof value !== 'string' || value.length > MAX_ECHO_CHARS) return;
    const text = normaliseText(value);
    if (text === '') return;
    texts.add(text);
    longest = Math.max(longest, value.length);
  };
  for (const value of Object.values(args as Record<string, unknown>)) {
    if (Array.isArray(value)) value.slice(0, 100).forEach(add);
    else add(value);
  }
  return { texts, longest };
}

/** A kept text, normalised (once: the normalised text replaces the one given). */
function normalisedText(part: TextPart): string {
  if (!part.normalised) {
    part.text = normaliseText(part.text);
    part.normalised = true;
  }
  return part.text;
}

function findText(texts: readonly TextPart[], wanted: string): Occurrence[] {
  const found: Occurrence[] = [];
  for (const part of texts) {
    const text = normalisedText(part);
    let at = text.indexOf(wanted);
    while (at !== -1) {
      // Whole words only: `al` is not in `alice`.
      const before = at === 0 ? '' : text[at - 1]!;
      const after = text[at + wanted.length] ?? '';
      if (!isWordChar(before) && !isWordChar(after)) {
        found.push({ source: part.source, path: part.path, atom: wanted });
        break;
      }
      at = text.indexOf(wanted, at + 1);
    }
  }
  return found;
}

function isWordChar(char: string): boolean {
  return char !== '' && /[\p{L}\p{N}_]/u.test(char);
}

/** A result as structure: hosts hand text (a LangChain tool's string, an MCP text block), often JSON. */
function structured(result: unknown, maxChars: number): unknown {
  if (typeof result !== 'string' || result.length > maxChars) return result;
  const first = result.trimStart()[0];
  if (first !== '{' && first !== '[') return result;
  try {
    return JSON.parse(result) as unknown;
  } catch {
    return result;
  }
}

function safeTrust(trustOf: TrustOf, tool: string, path: readonly string[]): Trust {
  try {
    const trust = trustOf(tool, path);
    return trust === 'trusted' || trust === 'directory' ? trust : 'untrusted';
  } catch {
    return 'untrusted';
  }
}

/**
 * The text leaves of a result with their key paths (list indexes left out); a string result is one leaf. `complete`
 * is false when the result had more than {@link MAX_LEAVES} leaves.
 */
function leavesOf(result: unknown): { leaves: Array<{ path: string[]; text: string }>; complete: boolean } {
  const leaves: Array<{ path: string[]; text: string }> = [];
  let complete = true;
  const walk = (value: unknown, path: string[], depth: number) => {
    if (leaves.length >= MAX_LEAVES) {
      complete = false;
      return;
    }
    if (typeof value === 'string') leaves.push({ path, text: value });
    else if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') leaves.push({ path, text: String(value) });
    else if (value === null || value === undefined || typeof value !== 'object') return;
    else if (depth >= MAX_WALK_DEPTH) leaves.push({ path, text: safeStringify(value) });
    else if (Array.isArray(value)) for (const item of value) walk(item, path, depth + 1);
    else {
      // Keys can be data too (a map from hotel names to reviews): they are read under the map's own path.
      const keys: string[] = [];
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        if (/[^A-Za-z0-9_]/.test(key)) keys.push(key);
        walk(item, [...path, key], depth + 1);
      }
      if (keys.length > 0) leaves.push({ path, text: keys.join('\n') });
    }
  };
  walk(result, [], 0);
  return { leaves, complete };
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}
