import type { Verdict } from '../temporal/index.js';

/** A data tool's canned answers for the sentinel: the first entry whose `args` are all in the call answers it. */
export interface ToolFixture {
  /** Arguments the call must have (others may be present too). Absent: any call. */
  args?: Record<string, unknown>;
  result: unknown;
}

/** The sentinel side of a scenario: which rulebase guards the tools and the world it sees. */
export interface ScenarioRules {
  /** The rulebase file, resolved against the scenario's folder. */
  file: string;
  /** Context variables bound before the conversation (`current_user`). */
  context: Record<string, string | number | boolean>;
  /** Askables the user confirmed before the conversation, in the rule language (`confirms_cancellation("ABC123")`). */
  confirm: string[];
  /** Data tools by name. */
  fixtures: Record<string, ToolFixture[]>;
  /** The world's time for the rules (TTLs, `hours_since`), in ms since the epoch; the system clock when absent. */
  now?: number;
}

/** What a scenario expects; every key is optional, and only the given keys are checked. */
export interface ScenarioExpectations {
  /** Final verdict of each named constraint, after the conversation ends. */
  verdicts?: Record<string, Verdict>;
  /** Exactly these constraints are violated (any order). */
  violations?: string[];
  /** Exactly these tool calls are refused, in order (by the workflow or by the rules). */
  refused?: string[];
  /** How many loops the detector reports, or exactly which kinds, in order. */
  loops?: number | string[];
  /** The state the session is in at the end. */
  finalState?: string;
  /** The whole trace of states, from the initial one. */
  trace?: string[];
  /** Exactly these interventions are applied, in order. */
  interventions?: string[];
}

/** One parsed scenario file. */
export interface Scenario {
  name: string;
  /** The scenario file. */
  file: string;
  /** The workflow file, resolved against the scenario's folder (or the command's `--workflow`). */
  workflow?: string;
  rules?: ScenarioRules;
  /** The conversation as written (OpenAI-format messages), when given inline. */
  conversation?: unknown[];
  /** A recorded transcript, resolved against the scenario's folder, and which session of a `.jsonl` file. */
  transcript?: { file: string; session?: string };
  expect: ScenarioExpectations;
}

/** One expectation that did not hold. */
export interface ScenarioMismatch {
  /** Which expectation: `verdicts.verify_first`, `refused`, `final_state`. */
  field: string;
  expected: unknown;
  actual: unknown;
}

/** What happened in one scenario, and whether it was what the file expects. */
export interface ScenarioResult {
  name: string;
  file: string;
  status: 'passed' | 'failed' | 'error';
  /** For `error`: why the scenario could not run (an unreadable transcript, an unknown workflow). */
  error?: string;
  mismatches: ScenarioMismatch[];
  durationMs: number;
  actual: {
    trace: string[];
    finalState: string;
    verdicts: Record<string, Verdict>;
    violations: string[];
    refused: string[];
    loops: string[];
    interventions: string[];
    /** Tools the rules checked. */
    guarded: string[];
    /** Constraints that refused a tool call before it ran (it never entered the trace). */
    refusedBy: string[];
  };
}

/** What no scenario exercised, per workflow and rulebase. */
export interface ScenarioCoverage {
  /** Constraints whose states never occurred in a trace and that no scenario saw violated, by workflow file. */
  constraints: Record<string, string[]>;
  /** Interventions never applied, by workflow file. */
  interventions: Record<string, string[]>;
  /** Guarded tools never checked, by rulebase file. */
  guards: Record<string, string[]>;
}

/** The run of many scenarios. */
export interface ScenarioReport {
  results: ScenarioResult[];
  /** Scenario files that could not be parsed, with their diagnostics rendered. */
  problems: Array<{ file: string; text: string }>;
  coverage: ScenarioCoverage;
  summary: { scenarios: number; passed: number; failed: number; errors: number; problems: number; durationMs: number };
}
