import { describe, expect, it } from 'vitest';
import { createJsonProgress, formatEvent } from '../../../src/io/events.js';
import { readCommandLine } from '../../../src/cli/argv.js';
import { createVirtualClock } from '../../helpers/virtual-clock.js';
import { CaptureStream } from '../../helpers/world.js';

const parse = (s: CaptureStream): Array<Record<string, unknown>> =>
  s
    .text()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('createJsonProgress', () => {
  it('notes become warning events without the prefix; a resume does not count as a page', () => {
    const stderr = new CaptureStream();
    const clock = createVirtualClock(Date.UTC(2024, 0, 1), { autoAdvance: false });
    const p = createJsonProgress({ stderr, clock, quiet: false });
    p.onPage(10, 1, 20);
    p.note('collections: column "x" first seen after the header');
    clock.advance(1500);
    p.onPage(20, 2, 20);
    p.done('out.csv');
    expect(parse(stderr)).toEqual([
      { event: 'warning', time: '2024-01-01T00:00:00.000Z', message: 'column "x" first seen after the header' },
      { event: 'page', time: '2024-01-01T00:00:01.500Z', items: 20, pages: 2, totalItems: 20 },
      {
        event: 'summary',
        time: '2024-01-01T00:00:01.500Z',
        items: 20,
        pages: 2,
        requests: 0,
        waits: 0,
        waitMs: 0,
        elapsedMs: 1500,
        destination: 'out.csv',
        mode: 'offset',
      },
    ]);
  });

  it('a change of mode is one mode event, and the summary names the mode the API paged in', () => {
    const stderr = new CaptureStream();
    const p = createJsonProgress({ stderr, clock: createVirtualClock(Date.UTC(2024, 0, 1), { autoAdvance: false }), quiet: false });
    p.start({ command: 'invoices', endpoint: '/taxpayers/{taxpayerId}/invoices', mode: 'offset', format: 'ndjson', destination: 'stdout' });
    p.modeChanged({ mode: 'cursor', asked: 'offset', message: 'the API pages this endpoint by cursor only' });
    p.done('stdout');
    const events = parse(stderr);
    expect(events[1]).toEqual({
      event: 'mode',
      time: '2024-01-01T00:00:00.000Z',
      mode: 'cursor',
      asked: 'offset',
      message: 'the API pages this endpoint by cursor only',
    });
    expect(events[2]).toMatchObject({ event: 'summary', mode: 'cursor' });
  });

  it('--quiet: no events', () => {
    const stderr = new CaptureStream();
    const p = createJsonProgress({ stderr, clock: createVirtualClock(), quiet: true });
    p.note('x');
    p.onClientEvent({ type: 'retry', attempt: 1, delayMs: 10, reason: 'HTTP 503' });
    p.done('x');
    expect(stderr.text()).toBe('');
    expect(p.stats.retries).toBe(1);
  });
});

describe('formatEvent and the --log-format of a command line', () => {
  it('one line, event and time first, strings made inert', () => {
    const line = formatEvent({ event: 'warning', message: 'a\x1b[2Jb' }, 0);
    expect(line).toBe('{"event":"warning","time":"1970-01-01T00:00:00.000Z","message":"ab"}\n');
  });

  it.each([
    [['entities'], 'text'],
    [['entities', '--log-format', 'json'], 'json'],
    [['entities', '--log-format=json'], 'json'],
    [['entities', '--log-format', 'json', '--log-format', 'text'], 'text'],
    [['entities', '--', '--log-format', 'json'], 'text'],
    [['entities', '--log-format', 'xml'], 'text'],
  ])('%j → %s', (argv, expected) => {
    expect(readCommandLine(argv).logFormat).toBe(expected);
  });
});
