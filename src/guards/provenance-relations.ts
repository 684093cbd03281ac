import { candidatesOf, type Occurrence, type ProvenanceLog } from '../facts/index.js';
import type { Value } from '../rules/index.js';

/**
 * One link of a provenance chain: which argument of the call, which value in it (the atom), and which result it came
 * from (tool, step, field). What a refusal names, so a reader can check it against the transcript.
 */
export interface ProvenanceLink {
  /** The argument of the guarded call that holds the value, when it is one of the call's. */
  argument?: string;
  /** The value as normalised (an e-mail address, a URL without scheme, an IBAN without spaces, a name in lower case). */
  atom: string;
  /** The tool whose result it came from; absent when the session's untrusted content overflowed the log. */
  tool?: string;
  /** The result's step in the session (1, 2, ...). */
  step?: number;
  /** The field of the result (`transactions.subject`), '' for the whole result. */
  path?: string;
}

/** Whether a provenance relation holds, and the links that make it so (or, for a failed `user_gave`, the values missing). */
export interface RelationVerdict {
  holds: boolean;
  links: ProvenanceLink[];
}

/**
 * `from_untrusted(V)`: some value in V occurs in an untrusted result and in no trusted message (the user's, the system
 * prompt) and is no whole entry of a directory result. A merely trusted result that also holds it does not clear it: the untrusted one may
 * be why the agent uses it. When the log lost untrusted content to its budget, every value no trusted source
 * gave counts as untrusted: provenance fails closed. `phrases: false` looks only at the atoms in V (links, addresses,
 * accounts), for content sent out rather than a destination.
 */
export function fromUntrusted(log: ProvenanceLog, value: Value, args?: Readonly<Record<string, unknown>>, { phrases = true }: { phrases?: boolean } = {}): RelationVerdict {
  const links: ProvenanceLink[] = [];
  for (const candidate of candidatesOf(value, { phrases })) {
    const found = log.lookup(candidate);
    if (found.some((occurrence) => occurrence.source.kind !== 'tool') || log.isDirectoryEntry(candidate.key) || log.isDirectoryEntry(candidate.value)) continue;
    const untrusted = found.find((occurrence) => occurrence.source.trust !== 'trusted');
    const argument = argumentHolding(args, candidate.value);
    if (untrusted) links.push(linkOf(untrusted, argument));
    else if (log.overflowed) links.push({ atom: candidate.key, ...(argument ? { argument } : {}) });
  }
  return { holds: links.length > 0, links };
}

/** `user_gave(V)`: every value in V occurs in the user's messages or the system prompt (V has at least one value). */
export function userGave(log: ProvenanceLog, value: Value): RelationVerdict {
  const candidates = candidatesOf(value);
  const links: ProvenanceLink[] = [];
  for (const candidate of candidates) {
    const given = log.lookup(candidate).find((occurrence) => occurrence.source.kind !== 'tool');
    if (!given) return { holds: false, links: [{ atom: candidate.key }] };
    links.push({ atom: candidate.key, step: given.source.step });
  }
  return { holds: candidates.length > 0, links };
}

/** `seen_in(V, Tool)`: the tools in whose results some value in V occurs, each with its first occurrence. */
export function toolsSeenIn(log: ProvenanceLog, value: Value): Map<string, ProvenanceLink> {
  const tools = new Map<string, ProvenanceLink>();
  for (const candidate of candidatesOf(value)) {
    for (const occurrence of log.lookup(candidate)) {
      const tool = occurrence.source.tool;
      if (tool !== undefined && !tools.has(tool)) tools.set(tool, linkOf(occurrence));
    }
  }
  return tools;
}

/** `in_context_untrusted`: the untrusted results in the model's context, oldest first (one link each). */
export function untrustedInContext(log: ProvenanceLog): RelationVerdict {
  const links = log.untrustedSources().map((source) => ({ atom: '', ...(source.tool !== undefined ? { tool: source.tool } : {}), step: source.step }));
  return { holds: log.hasUntrusted(), links };
}

/** A link in words: `recipient "US13..." came from read_file's result (step 3)`. */
export function describeLink(link: ProvenanceLink, relation: string): string {
  const what = `${link.argument ? `${link.argument} ` : ''}${JSON.stringify(link.atom)}`;
  if (relation === 'in_context_untrusted') return `an untrusted result of ${link.tool ?? 'a tool'} (step ${link.step}) is in context`;
  if (relation === 'user_gave') return link.step === undefined ? `${what} is not in the user's messages` : `${what} was given by the user (step ${link.step})`;
  if (link.tool === undefined) return `${what} is in no trusted source, and untrusted content overflowed the provenance log`;
  const field = link.path ? ` field ${link.path}` : '';
  return `${what} came from ${link.tool}'s result${field} (step ${link.step}), which is untrusted, and not from the user`;
}

function linkOf(occurrence: Occurrence, argument?: string): ProvenanceLink {
  return {
    ...(argument ? { argument } : {}),
    atom: occurrence.atom,
    ...(occurrence.source.tool !== undefined ? { tool: occurrence.source.tool } : {}),
    step: occurrence.source.step,
    path: occurrence.path,
  };
}

/** The name of the call's argument whose value is, or contains, `value`. */
function argumentHolding(args: Readonly<Record<string, unknown>> | undefined, value: string): string | undefined {
  if (!args) return undefined;
  for (const [name, argument] of Object.entries(args)) {
    if (argument === value) return name;
    if (Array.isArray(argument) && argument.includes(value)) return name;
  }
  for (const [name, argument] of Object.entries(args)) if (typeof argument === 'string' && argument.includes(value)) return name;
  return undefined;
}
