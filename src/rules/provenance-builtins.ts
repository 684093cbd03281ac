/**
 * Built-in relations about where values came from (the session's provenance log) and the judged condition. They
 * read the call being guarded and the session, so they hold or fail per call, never as stored facts.
 */
export const PROVENANCE_PREDICATES: Readonly<Record<string, { arity: number; inputs: readonly number[]; description: string }>> = {
  from_untrusted: {
    arity: 1,
    inputs: [0],
    description: 'from_untrusted(V): a value in V occurs in an untrusted tool result and in no trusted message (the user\'s, the system prompt)',
  },
  user_gave: { arity: 1, inputs: [0], description: "user_gave(V): every value in V occurs in the user's messages or the system prompt" },
  sink_from_untrusted: {
    arity: 0,
    inputs: [],
    description: 'sink_from_untrusted: an argument the rulebase declares a sink of the guarded tool (`sink tool(param) kind`) is from_untrusted',
  },
  in_context_untrusted: { arity: 0, inputs: [], description: "in_context_untrusted: an untrusted tool result is in the model's context" },
  seen_in: { arity: 2, inputs: [0], description: 'seen_in(V, Tool): a value in V occurs in a result of Tool (Tool may be unbound)' },
  judged: {
    arity: 1,
    inputs: [0],
    description: "judged(Name): a judge the application plugs in answers the open question Name about the call; with none, the user is asked",
  },
};
