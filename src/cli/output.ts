import { createColors } from 'picocolors';
import { formatDiagnostic, type Diagnostic } from '../diagnostics/index.js';

/** Where a command writes, and whether it may use colour. Injected so tests capture output. */
export interface Output {
  out(line: string): void;
  err(line: string): void;
  colors: ReturnType<typeof createColors>;
}

/**
 * Console output, coloured only when the stream is a terminal and NO_COLOR is unset (FORCE_COLOR forces it).
 */
export function consoleOutput(): Output {
  const enabled = process.env.FORCE_COLOR ? process.env.FORCE_COLOR !== '0' : Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
  return {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    colors: createColors(enabled),
  };
}

/** One diagnostic, compiler style, with the severity coloured. */
export function renderDiagnostic(diagnostic: Diagnostic, output: Output): string {
  const { colors } = output;
  const severity = diagnostic.severity === 'error' ? colors.red('error') : colors.yellow('warning');
  return formatDiagnostic(diagnostic).replace(` ${diagnostic.severity} `, ` ${severity} `);
}

/** `1 error`, `2 warnings`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
