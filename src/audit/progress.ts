/** Sessions above which `panoptes audit` draws a progress bar (on a terminal only). */
export const PROGRESS_THRESHOLD = 5;

/** `audit [████████░░░░░░░░░░░░]  12/30 sessions`: one line, redrawn in place with a carriage return. */
export function progressLine(done: number, total: number, width = 24): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `audit [${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${String(done).padStart(String(total).length)}/${total} sessions`;
}
