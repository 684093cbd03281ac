import type { Clock } from '../clock/index.js';
import type { Logger } from './fail-open.js';
import type { Monitor } from './types.js';

/** One decision of a monitor, as `debug` logs it: a JSON object on one line. */
export interface DecisionLine {
  panoptes: 'decision';
  /** When it was made, ISO 8601. */
  time: string;
  session: string;
  /** With several workflows (`createMonitor({ workflows })`): the id of the session's workflow. Absent with one. */
  workflow?: string;
  /** Where it was made: `transition` (a state entered, a deviation), `constraint`, `tool` (a call refused), `model` (guidance applied, a call blocked), `loop`. */
  phase: 'transition' | 'constraint' | 'tool' | 'model' | 'loop';
  state?: string;
  constraint?: string;
  /** What was decided: `entered`, `deviation`, `violated`, `withheld`, `doomed`, `refused`, `intervened`, `blocked`, or a loop's action. */
  verdict: string;
  reason: string;
}

/**
 * Whether the environment asks for decision logs: `PANOPTES_DEBUG` set to `1` or `true` (what the CLI's `--debug`
 * sets). Read once, when a monitor is made; false where there is no `process` (a browser, an edge runtime).
 */
export function debugFromEnvironment(): boolean {
  const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.PANOPTES_DEBUG;
  return value === '1' || value === 'true';
}

/**
 * Logs each decision of the monitor as one JSON line through `logger.debug` (or `logger.warn` for a logger without
 * it), from the monitor's own events. Nothing is subscribed unless this is called, so a monitor without `debug` pays
 * nothing for it. A logger that throws is ignored: logging never fails a call. `workflowId` (the monitor is one of a
 * monitor of several workflows) is written on each line after the session.
 */
export function attachDecisionLog(monitor: Pick<Monitor, 'on'>, logger: Logger, clock: Clock, workflowId?: string): void {
  const write = ({ session, ...rest }: Omit<DecisionLine, 'panoptes' | 'time' | 'workflow'>) => {
    try {
      const where = workflowId === undefined ? { session } : { session, workflow: workflowId };
      const text = JSON.stringify({ panoptes: 'decision', time: new Date(clock.now()).toISOString(), ...where, ...rest });
      if (typeof logger.debug === 'function') logger.debug(text);
      else logger.warn(text);
    } catch {
      // a debug log never fails the call it reports on
    }
  };
  monitor.on('state-change', ({ sessionId, from, to }) => write({ session: sessionId, phase: 'transition', state: to, verdict: 'entered', reason: `${from} -> ${to}` }));
  monitor.on('deviation', ({ sessionId, deviation }) =>
    write({ session: sessionId, phase: 'transition', state: deviation.to, verdict: 'deviation', reason: `${deviation.from} -> ${deviation.to} is not a transition the workflow lists (or its guard failed)` }),
  );
  monitor.on('violation', ({ sessionId, violation }) =>
    write({ session: sessionId, phase: 'constraint', ...(violation.state === undefined ? {} : { state: violation.state }), constraint: violation.constraint, verdict: violation.withheld ? 'withheld' : 'violated', reason: `${violation.severity}: ${violation.message}` }),
  );
  monitor.on('doomed', ({ sessionId, constraint, message }) => write({ session: sessionId, phase: 'constraint', constraint, verdict: 'doomed', reason: message }));
  monitor.on('refusal', ({ sessionId, refusal }) =>
    write({ session: sessionId, phase: 'tool', state: refusal.state, ...(refusal.constraints.length > 0 ? { constraint: refusal.constraints.join(',') } : {}), verdict: 'refused', reason: `by ${refusal.by}: ${refusal.reason}` }),
  );
  monitor.on('intervention', ({ sessionId, intervention }) =>
    write({ session: sessionId, phase: 'model', verdict: intervention.strategy === 'hard-block' ? 'blocked' : 'intervened', reason: `${intervention.name} (${intervention.strategy})` }),
  );
  monitor.on('loop', ({ sessionId, report }) => write({ session: sessionId, phase: 'loop', verdict: report.action, reason: `${report.kind}: ${report.message}` }));
}
