import ora from 'ora';
import { describe, expect, it } from 'vitest';
import { createProgress, spinnerEnabled } from '../../../src/io/progress.js';
import { createVirtualClock } from '../../../src/time/clock.js';
import { CaptureStream } from '../../helpers/context.js';

describe('spinnerEnabled', () => {
  it.each([
    [{ isTTY: true, quiet: false, spinner: true, env: {} }, true],
    [{ isTTY: false, quiet: false, spinner: true, env: {} }, false],
    [{ isTTY: true, quiet: true, spinner: true, env: {} }, false],
    [{ isTTY: true, quiet: false, spinner: false, env: {} }, false],
    [{ isTTY: true, quiet: false, spinner: true, env: { CI: 'true' } }, false],
    [{ isTTY: true, quiet: false, spinner: true, env: { CI: '1' } }, false],
    [{ isTTY: true, quiet: false, spinner: true, env: { CI: '' } }, true],
    [{ isTTY: true, quiet: false, spinner: true, env: { CI: 'false' } }, true],
    [{ isTTY: true, quiet: false, spinner: true, env: { CI: '0' } }, true],
  ])('%j → %s', (options, expected) => {
    expect(spinnerEnabled(options)).toBe(expected);
  });
});

/** A terminal stream with the cursor methods of tty.WriteStream, reporting `columns`. */
class FakeTerminal extends CaptureStream {
  constructor(columns: number) {
    super(true, columns);
  }
  cursorTo(): boolean {
    return this.write('\x1b[1G');
  }
  clearLine(): boolean {
    return this.write('\x1b[0K');
  }
  moveCursor(): boolean {
    return this.write('\x1b[1A');
  }
}

describe('createProgress on a terminal', () => {
  it.each([0, 40])('a terminal reporting %i columns: output stays bounded (ora divides by the width)', (columns) => {
    const stderr = new FakeTerminal(columns);
    const clock = createVirtualClock();
    const progress = createProgress({ stderr, isTTY: true, env: {}, clock, quiet: false, spinner: true, verbose: false, createSpinner: ora });
    for (let page = 1; page <= 5; page++) {
      clock.advance(200);
      progress.onPage(page * 10, page, 50);
    }
    progress.done('x.ndjson');
    const text = stderr.text();
    expect(text.length).toBeLessThan(5_000);
    expect(text).toContain('50 items to x.ndjson');
  });

  it('a stream without cursor methods (a capture marked as a terminal) works', () => {
    const stderr = new CaptureStream(true, 80);
    const clock = createVirtualClock();
    const progress = createProgress({ stderr, isTTY: true, env: { NO_COLOR: '1' }, clock, quiet: false, spinner: true, verbose: false, createSpinner: ora });
    progress.onClientEvent({ type: 'wait', reason: 'pacing', ms: 30_000, until: clock.now() + 30_000, limit: 60, remaining: 0 });
    progress.note('collections: a note');
    progress.done('stdout');
    const text = stderr.text();
    expect(text).toContain('rate limit reached (0/60 left), resuming at ');
    expect(text).toContain('collections: a note\n');
    expect(text).not.toMatch(/\x1b\[3\dm/);
    expect(progress.stats.waits).toBe(1);
    expect(progress.stats.waitMs).toBe(30_000);
  });
});
