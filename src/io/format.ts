/**
 * Small human formatting helpers for progress, summaries and tables. Pure. Durations are
 * pretty-ms's.
 */
import prettyMilliseconds from 'pretty-ms';

const pad2 = (n: number): string => String(n).padStart(2, '0');

/**
 * `12345` → `12,345` (as `toLocaleString('en-US')`, whose first call loads the ICU number data: about
 * 25 ms of start-up). Not finite: `NaN`, `∞`, `-∞`.
 */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '∞' : '-∞';
  const digits = String(Math.abs(Math.round(n)));
  const grouped = digits.length > 21 ? digits : digits.replace(/\B(?=(\d{3})+$)/g, ',');
  return (n <= -0.5 ? '-' : '') + grouped;
}

/**
 * A duration for people, by pretty-ms: `850ms`, `12.3s`, `1.0s`, `4m 5s`, `2h 3m`, `26h`. Under a
 * minute, tenths of a second (floored, kept on whole seconds); from a minute on, the two largest
 * units, whole seconds, hours without days.
 * @param ms milliseconds (negative or not finite counts as 0)
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) ms = 0;
  return ms < 60_000
    ? prettyMilliseconds(ms, { keepDecimalsOnWholeSeconds: true })
    : prettyMilliseconds(ms, { unitCount: 2, secondsDecimalDigits: 0, hideYearAndDays: true });
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
 * Time left, by pretty-ms, in whole seconds rounded up (a quota resets no earlier than shown), the
 * two largest units: `0s`, `59s`, `1m`, `4m 5s`, `2h 3m`, `1d 2h`.
 * @param ms milliseconds (negative counts as 0)
 */
export function formatTimeLeft(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  // pretty-ms writes zero as `0ms`; time left is counted in seconds.
  return seconds === 0 ? '0s' : prettyMilliseconds(seconds * 1000, { unitCount: 2, hideYear: true });
}
