/** A progress bar on stderr: redrawn in place on a terminal, a line per 10 % step otherwise (logs, CI). */
export function progressBar(write: (text: string) => void, isTTY: boolean, width = 24) {
  let key = '';
  let lastStep = -1;
  let drawn = false;
  return {
    update(label: string, done: number, total: number): void {
      const ratio = total > 0 ? Math.min(1, done / total) : 1;
      const filled = Math.round(ratio * width);
      const line = `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(ratio * 100)}% ${done}/${total}`;
      if (isTTY) {
        write(`\r${line}\x1b[K`);
        drawn = true;
        return;
      }
      const step = Math.floor(ratio * 10);
      if (label !== key || step !== lastStep) write(line + '\n');
      key = label;
      lastStep = step;
    },
    /** Ends the in-place line so later messages start on their own line. */
    finish(): void {
      if (drawn) write('\n');
      drawn = false;
    },
  };
}
