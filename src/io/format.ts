/**
 * Small human formatting helpers for progress, summaries and tables. Pure.
 */

/** `12345` → `12,345`. */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/**
 * A duration for people: `850ms`, `12.3s`, `4m 05s`, `2h 03m`.
 * @param ms milliseconds
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) ms = 0;
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(Math.floor(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/**
 * A local clock time, `HH:MM:SS` in the machine's time zone (what a person at the terminal reads).
 * @param epochMs epoch milliseconds
 */
export function formatLocalTime(epochMs: number): string {
  const d = new Date(epochMs);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
