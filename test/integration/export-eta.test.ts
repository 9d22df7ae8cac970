/**
 * The ETA of the progress line against the time runs really take, on the virtual clock: the
 * sandbox of the example in docs/progress.md ("Progress") (`--invoices 200000 --limit 10 --window 5 --latency 100`, pages
 * of 1,000) scaled down tenfold in items only: 20,000 invoices in 200 pages of 100, so the same
 * requests, windows and times with a tenth of the records to generate. An export resumed at 7,500
 * (the example's 75,000) and fresh ones, also started at other points of a window (a person starts
 * an export at any second). The time left at each repaint is measured from the run itself (its end
 * on the virtual clock), never computed from the estimator's formula.
 */
import { describe, expect, it } from 'vitest';
import { interruptAt, runInProcess, START, tempDir, type InProcessOptions, useTempDir, useWorld } from '../helpers/world.js';

const dir = useTempDir();
const world = useWorld({ limit: 10, windowSeconds: 5, latencyMs: 100, sizes: { taxpayers: 1, invoicesPerTaxpayer: 20_000 } });

/** One repaint of the spinner: when (virtual monotonic ms), the items it shows and its ETA (ms). */
interface Frame {
  mono: number;
  items: number;
  etaMs: number;
}

/** `1m 2s`, `59s`, `1h 3m` (pretty-ms's units as the line shows them) → ms. */
function parseEta(text: string): number {
  const unit: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };
  return [...text.matchAll(/(\d+)([dhms])/g)].reduce((sum, [, n, u]) => sum + Number(n) * unit[u!]!, 0);
}

/** Run options that record every repaint showing an ETA with the virtual time it was written at. */
function recordFrames(frames: Frame[], base: InProcessOptions = {}): InProcessOptions {
  return {
    ...base,
    stderrIsTTY: true,
    columns: 120,
    onContext: (t) => {
      base.onContext?.(t);
      const write = t.stderr.write.bind(t.stderr) as (chunk: unknown, ...rest: unknown[]) => boolean;
      t.stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
        const m = /([\d,]+) of [\d,]+ items \(\d+%\).* · ETA ((?:\d+[dhms] ?)+)/.exec(String(chunk));
        if (m) frames.push({ mono: world.clock.monotonic(), items: Number(m[1]!.replace(/,/g, '')), etaMs: parseEta(m[2]!) });
        return write(chunk, ...rest);
      }) as typeof t.stderr.write;
    },
  };
}

const ARGS = (): string[] => ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--total', '--items-per-page', '100', '--out', 'x.ndjson'];

/** The first frame showing at least `items`, and the time the run really had left then, ms. */
function at(frames: readonly Frame[], items: number, endMono: number): { shown: number; actual: number; items: number } {
  const frame = frames.find((f) => f.items >= items);
  if (frame === undefined) throw new Error(`no frame at ${items} items`);
  return { shown: frame.etaMs, actual: endMono - frame.mono, items: frame.items };
}

describe('the ETA on a rate-limited sandbox', () => {
  it('after --resume at 7,500 of 20,000: within 25 % of the time really left, at several points', async () => {
    // SIGINT as request 76 starts: pages 1..75 (7,500 items) are written and checkpointed.
    const first = await runInProcess(world, dir, ARGS(), { ...interruptAt(76), stderrIsTTY: false });
    expect(first.code, first.stderr).toBe(130);
    const frames: Frame[] = [];
    const start = world.clock.monotonic();
    const r = await runInProcess(world, dir, [...ARGS(), '--resume'], recordFrames(frames));
    const end = world.clock.monotonic();
    expect(r.code, r.stderr.slice(-300)).toBe(0);
    // Shown once the window's length is learnt: after the first reset the resumed run crosses.
    expect(frames[0]!.mono - start).toBeLessThan(6_000);
    const points = [frames[0]!.items, 10_000, 12_500, 15_000, 17_500].map((items) => at(frames, items, end));
    // The resumed run still has about 12 windows of 5 s to go: the old ETA said a few seconds.
    expect(points[0]!.actual).toBeGreaterThan(50_000);
    for (const p of points) expect(Math.abs(p.shown - p.actual), JSON.stringify(p)).toBeLessThanOrEqual(p.actual * 0.25);
  }, 60_000);

  it('on a fresh run: the first ETA shown within 25 % of the time the run really took', async () => {
    const frames: Frame[] = [];
    const r = await runInProcess(world, dir, ARGS(), recordFrames(frames));
    const end = world.clock.monotonic();
    expect(r.code).toBe(0);
    const first = frames[0]!;
    // About 20 windows of 5 s; the rate of the first pages alone (100 items in 100 ms) would say 20 s.
    expect(end).toBeGreaterThan(90_000);
    expect(Math.abs(first.etaMs - (end - first.mono))).toBeLessThanOrEqual((end - first.mono) * 0.25);
  }, 60_000);
});

/**
 * A fresh export started `offsetMs` into a window of the sandbox (its windows begin on multiples of
 * their length): every repaint that shows an ETA, the time the run started and ended, and its exit code.
 */
async function freshRun(
  offsetMs: number,
  sandbox: { limit: number; latencyMs: number; invoices: number },
): Promise<{ frames: Frame[]; start: number; end: number; code: number }> {
  const d = tempDir();
  try {
    world.recreate({
      start: START + offsetMs,
      limit: sandbox.limit,
      windowSeconds: 5,
      latencyMs: sandbox.latencyMs,
      sizes: { taxpayers: 1, invoicesPerTaxpayer: sandbox.invoices },
    });
    const frames: Frame[] = [];
    const start = world.clock.monotonic();
    const r = await runInProcess(world, d, ARGS(), recordFrames(frames));
    return { frames, start, end: world.clock.monotonic(), code: r.code };
  } finally {
    d.remove();
  }
}

describe('the first ETA of a fresh run started at any point of a window', () => {
  // docs/progress.md's settings (--limit 10 --window 5 --latency 100, 200 pages) and issue 27's
  // (--limit 3 --window 5 --invoices 3000 --items-per-page 100: 30 pages, about 47 s).
  const settings = [
    { name: '10 per 5 s, 200 pages', limit: 10, latencyMs: 100, invoices: 20_000 },
    { name: '3 per 5 s, 30 pages', limit: 3, latencyMs: 0, invoices: 3_000 },
  ];
  // docs/progress.md's "ETA 58s" after 1.5 s for a 97 s run was a start 3.5 s into a window.
  const runs = [
    { ...settings[0]!, offsetMs: 3_500 },
    { ...settings[1]!, offsetMs: 1_500 },
    { ...settings[1]!, offsetMs: 3_500 },
  ];
  it.each(runs)(
    '$name, started $offsetMs ms into a window: none until the window is known, then within 25 % of the time left',
    async (s) => {
      const { frames, start, end, code } = await freshRun(s.offsetMs, s);
      expect(code).toBe(0);
      // The first reset comes 5 s − offset after the start; the window is known once the next one is seen.
      const firstReset = start + 5_000 - s.offsetMs;
      expect(frames[0]!.mono).toBeGreaterThanOrEqual(firstReset);
      expect(frames[0]!.mono - firstReset).toBeLessThan(1_000);
      // Every ETA shown while more than two windows are left.
      const shown = frames.filter((f) => end - f.mono > 10_000);
      expect(shown.length).toBeGreaterThan(0);
      for (const f of shown) {
        const actual = end - f.mono;
        expect(Math.abs(f.etaMs - actual), JSON.stringify({ ...f, actual })).toBeLessThanOrEqual(actual * 0.25);
      }
    },
    60_000,
  );
});
