import { describe, expect, it } from 'vitest';
import { hintOf } from '../../../../src/commands/error-text.js';
import { addResumeHint } from '../../../../src/export/run/interrupt.js';
import { ApiUnavailableError, InterruptedError, OutputError, RateLimitError } from '../../../../src/errors.js';

const FILE = { toFile: true, resumable: true, resumeCommand: 'collections entities --out e.ndjson' };
const HINT = 'resume with: collections entities --out e.ndjson --resume';

describe('addResumeHint', () => {
  it('words an interruption for files (checkpoint kept, hint when resumable) and for stdout', () => {
    const file = addResumeHint(new InterruptedError('SIGINT'), FILE) as InterruptedError;
    expect(file).toMatchObject({ message: 'interrupted by SIGINT; checkpoint kept', exitCode: 130 });
    expect(hintOf(file)).toBe(HINT);
    const early = addResumeHint(new InterruptedError('SIGTERM'), { ...FILE, resumable: false }) as InterruptedError;
    expect(early).toMatchObject({ message: 'interrupted by SIGTERM; checkpoint kept', hint: undefined, exitCode: 143 });
    const stdout = addResumeHint(new InterruptedError('SIGINT'), { ...FILE, toFile: false }) as InterruptedError;
    expect(stdout).toMatchObject({ message: 'interrupted by SIGINT' });
    expect(hintOf(stdout)).toBe('stdout exports cannot resume; use --out FILE');
  });

  it('adds the hint to exit 5 (keeping its code and reset) and to exit 6 (after its own hint)', () => {
    const wait = new RateLimitError('rate limit: wait of 3600 s', 1234, { code: 'E_RATE_LIMIT_REPEATED' });
    const waited = addResumeHint(wait, FILE) as RateLimitError;
    expect(waited).toMatchObject({ message: wait.message, resetAt: 1234, code: 'E_RATE_LIMIT_REPEATED', cause: wait });
    expect(hintOf(waited)).toBe(HINT);
    const down = new ApiUnavailableError('the API could not be read', { hint: 'try later' });
    const stopped = addResumeHint(down, FILE) as ApiUnavailableError;
    expect(stopped).toMatchObject({ message: down.message, code: down.code, exitCode: 6 });
    expect(hintOf(stopped)).toBe(`try later; ${HINT}`);
  });

  it('leaves everything else alone: not resumable, stdout, other exit codes, non-CollectionsErrors', () => {
    const down = new ApiUnavailableError('the API could not be read');
    expect(addResumeHint(down, { ...FILE, resumable: false })).toBe(down);
    expect(addResumeHint(down, { ...FILE, toFile: false })).toBe(down);
    const disk = new OutputError('cannot write x: no space left on the device (ENOSPC)');
    expect(addResumeHint(disk, FILE)).toBe(disk);
    const bug = new TypeError('x is undefined');
    expect(addResumeHint(bug, FILE)).toBe(bug);
  });
});
