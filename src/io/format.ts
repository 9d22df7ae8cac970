/**
 * Small human formatting helpers for progress, summaries and tables. Pure.
 */

const pad2 = (n: number): string => String(n).padStart(2, '0');

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
  if (m < 60) return `${m}m ${pad2(Math.floor(s % 60))}s`;
  return `${Math.floor(m / 60)}h ${pad2(m % 60)}m`;
}

/**
 * A local clock time, `HH:MM:SS` in the machine's time zone (what a person at the terminal reads),
 * with the date in front (`2024-04-17 00:00:05`) when it is not on the same local day as `nowMs`.
 * @param epochMs epoch milliseconds
 * @param nowMs epoch milliseconds of "now" (default: same day assumed)
 */
export function formatLocalTime(epochMs: number, nowMs?: number): string {
  const d = new Date(epochMs);
  const time = `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
  if (nowMs === undefined) return time;
  const n = new Date(nowMs);
  const sameDay = d.getFullYear() === n.getFullYear() && d.getMonth() === n.getMonth() && d.getDate() === n.getDate();
  return sameDay ? time : `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${time}`;
}

/**
 * Time left, in whole seconds rounded up (a quota resets no earlier than shown): `0s`, `59s`,
 * `4m 05s`, `2h 03m`, `1d 02h`.
 * @param ms milliseconds (negative counts as 0)
 */
export function formatTimeLeft(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  if (total < 60) return `${total}s`;
  const s = total % 60;
  const m = Math.floor(total / 60) % 60;
  const h = Math.floor(total / 3600) % 24;
  const d = Math.floor(total / 86400);
  if (total < 3600) return `${m}m ${pad2(s)}s`;
  if (total < 86400) return `${h}h ${pad2(m)}m`;
  return `${d}d ${pad2(h)}h`;
}
