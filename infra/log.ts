export type LogFn = (line: string) => void;

/** Default logger of the stack: `[stack] …` lines on stderr (stdout stays free for banners and jest). */
export const stackLog: LogFn = (line) => {
  process.stderr.write(`[stack] ${line}\n`);
};

export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
