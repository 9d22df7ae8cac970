import { describe, expect, it } from 'vitest';
import { CLI_WORDS, hintOf } from '../../src/commands/error-text.js';
import { EXPORT_FLAGS, longFlag } from '../../src/config/flags.js';
import { parseTableName } from '../../src/export/destinations/table-name.js';
import { addResumeHint } from '../../src/export/run/interrupt.js';
import { describeConnectFailure } from '../../src/http/connect-failure.js';
import { parseFields } from '../../src/output/fields.js';
import { listenError } from '../../src/sandbox/serve.js';
import { SANDBOX_SWITCHES } from '../../src/sandbox/switches.js';
import {
  AbortError,
  ApiUnavailableError,
  CollectionsError,
  EXIT_CODE_OF,
  ExitCode,
  hint,
  HINT_OPTIONS,
  HostileResponseError,
  HttpError,
  InterruptedError,
  option,
  OutputError,
  RateLimitError,
  renderHint,
  toExitCode,
  UnsafeLinkError,
  UsageError,
} from '../../src/errors.js';

describe('errors: one code and one exit code each', () => {
  it.each([
    [new UsageError('x'), 'E_USAGE', 2],
    [new UsageError('x', { code: 'E_CONFIG' }), 'E_CONFIG', 2],
    [new UsageError('x', { code: 'E_CHECKPOINT' }), 'E_CHECKPOINT', 2],
    [new HttpError({ method: 'GET', path: '/p', status: 400 }), 'E_API_REJECTED', 2],
    [new HttpError({ method: 'GET', path: '/p', status: 401 }), 'E_AUTH', 3],
    [new HttpError({ method: 'GET', path: '/p', status: 403 }), 'E_AUTH', 3],
    [new HttpError({ method: 'GET', path: '/p', status: 404 }), 'E_NOT_FOUND', 4],
    [new HttpError({ method: 'GET', path: '/p', status: 418 }), 'E_HTTP_UNEXPECTED', 6],
    [new RateLimitError('x'), 'E_RATE_LIMIT_WAIT', 5],
    [new RateLimitError('x', undefined, { code: 'E_RATE_LIMIT_REPEATED' }), 'E_RATE_LIMIT_REPEATED', 5],
    [new ApiUnavailableError('x'), 'E_API_UNAVAILABLE', 6],
    [new UnsafeLinkError('x'), 'E_UNSAFE_LINK', 6],
    [new HostileResponseError('x'), 'E_HOSTILE_RESPONSE', 6],
    [new OutputError('x'), 'E_OUTPUT_WRITE', 7],
    [new CollectionsError('x', 'E_LOCKED'), 'E_LOCKED', 7],
    [new InterruptedError('SIGINT'), 'E_INTERRUPTED_SIGINT', 130],
    [new InterruptedError('SIGTERM'), 'E_INTERRUPTED_SIGTERM', 143],
    [new AbortError(), 'E_ABORTED', 130],
  ] as const)('%s → %s, exit %i', (err, code, exit) => {
    expect(err).toBeInstanceOf(CollectionsError);
    expect(err.code).toBe(code);
    expect(err.exitCode).toBe(exit);
    expect(toExitCode(err)).toBe(exit);
    expect(EXIT_CODE_OF[code]).toBe(exit);
  });

  it('maps anything else to the internal error', () => {
    expect(toExitCode(new Error('bug'))).toBe(ExitCode.Internal);
    expect(toExitCode('thrown string')).toBe(1);
  });

  it('describes an HTTP error with the server message and request id, and its hint', () => {
    const err = new HttpError({ method: 'GET', path: '/taxpayers/X/invoices', status: 404, serverMessage: 'no such taxpayer', requestId: 'r-1' });
    expect(err.message).toBe('not found (GET /taxpayers/X/invoices: HTTP 404): no such taxpayer [X-Request-ID: r-1]');
    expect(hintOf(err)).toBe('check the path /taxpayers/X/invoices (the ids in it, and the path of base-url)');
    expect(new HttpError({ method: 'GET', path: '/p', status: 418 }).message).toBe('unexpected response (GET /p: HTTP 418)');
  });
});

/** The command line's words; `err.hint` holds the library's. */
const doors = (err: CollectionsError): { cli: string | undefined; library: string | undefined } => ({ cli: hintOf(err), library: err.hint });
const refused = (code: string): TypeError => new TypeError('fetch failed', { cause: { code, syscall: 'connect' } });
const connectError = (err: unknown, url: string): ApiUnavailableError =>
  new ApiUnavailableError('x', { hint: describeConnectFailure(err, new URL(url))!.hint });
const thrown = (f: () => unknown): CollectionsError => {
  try {
    f();
  } catch (err) {
    if (err instanceof CollectionsError) return err;
  }
  throw new Error('no CollectionsError thrown');
};
const FILE = { toFile: true, resumable: true, resumeCommand: 'collections entities --out e.ndjson' };
const KEY = 'set a valid key with `collections config set api-key` or COLLECTIONS_API_KEY';
const BASE_URL = 'check base-url (`collections config get base-url`, --base-url or COLLECTIONS_BASE_URL)';

describe('hints in both doors: the command line names flags and commands, the library options and calls', () => {
  it.each<[string, () => CollectionsError, string | undefined, string | undefined]>([
    ['HTTP 401', () => new HttpError({ method: 'GET', path: '/p', status: 401 }), KEY, 'check apiKey'],
    [
      'HTTP 404',
      () => new HttpError({ method: 'GET', path: '/v1/e?page=2', status: 404 }),
      'check the path /v1/e (the ids in it, and the path of base-url)',
      'check the path /v1/e (the ids in it, and the path of baseUrl)',
    ],
    [
      'HTTP 422 of the page size',
      () => new HttpError({ method: 'GET', path: '/e?itemsPerPage=60', status: 422, serverMessage: 'itemsPerPage: should be less than 51.' }),
      'the API refuses this page size (itemsPerPage=60): give --items-per-page 50 or less',
      'the API refuses this page size (itemsPerPage=60): give itemsPerPage: 50 or less',
    ],
    ['HTTP 400 of another parameter', () => new HttpError({ method: 'GET', path: '/e', status: 400 }), undefined, undefined],
    [
      'a refused connection',
      () => connectError(refused('ECONNREFUSED'), 'http://127.0.0.1:9/e'),
      `${BASE_URL}; to try the tool locally, run \`collections sandbox\` and use the base URL it prints`,
      'check baseUrl; to try the library locally, call startSandbox() and use the baseUrl it resolves to',
    ],
    [
      'TLS answered in plain text',
      () => connectError(refused('ERR_SSL_WRONG_VERSION_NUMBER'), 'https://h.test:8443/e'),
      `if it is an http server, use http://h.test:8443 as base-url; ${BASE_URL}`,
      'if it is an http server, use http://h.test:8443 as baseUrl; check baseUrl',
    ],
    [
      'an interrupted file export',
      () => addResumeHint(new InterruptedError('SIGINT'), FILE) as CollectionsError,
      'resume with: collections entities --out e.ndjson --resume',
      'run it again with resume: true',
    ],
    [
      'an exit 6 with its own hint, resumable',
      () => addResumeHint(new ApiUnavailableError('x', { hint: [{ step: 'checkBaseUrl' }] }), FILE) as CollectionsError,
      `${BASE_URL}; resume with: collections entities --out e.ndjson --resume`,
      'check baseUrl; run it again with resume: true',
    ],
    [
      'an interrupted stream export',
      () => addResumeHint(new InterruptedError('SIGTERM'), { ...FILE, toFile: false }) as CollectionsError,
      'stdout exports cannot resume; use --out FILE',
      'stream exports cannot resume; give out a file path',
    ],
    [
      'a system schema',
      () => thrown(() => parseTableName('pg_catalog.x')),
      'give a table of your own schema, e.g. --table public.invoices or --table analytics.invoices',
      "give a table of your own schema, e.g. table: 'public.invoices' or table: 'analytics.invoices'",
    ],
    [
      'an empty field name',
      () => thrown(() => parseFields('id,,total')),
      'give comma-separated names, e.g. --fields id,issuer.rfc,total',
      "give comma-separated names, e.g. fields: 'id,issuer.rfc,total'",
    ],
    [
      'a port in use',
      () => listenError(Object.assign(new Error('x'), { code: 'EADDRINUSE' }), '127.0.0.1', 80) as CollectionsError,
      'choose another --port (0 = any free port)',
      'choose another port (0 = any free port)',
    ],
    ['a plain hint', () => new OutputError('x', { hint: 'free some space' }), 'free some space', 'free some space'],
    ['no hint', () => new UsageError('x'), undefined, undefined],
  ])('%s', (_name, make, cli, library) => {
    expect(doors(make())).toEqual({ cli, library });
  });

  it('every option a hint names is a flag of the command line', () => {
    const flags = new Set([...EXPORT_FLAGS.map(longFlag), ...Object.values(SANDBOX_SWITCHES).map((o) => o.flag.split(' ')[0])]);
    for (const name of HINT_OPTIONS) expect(flags).toContain(CLI_WORDS.option(option(name)));
  });

  it('a value follows the flag, and is written as JavaScript in the library', () => {
    const said = hint`give ${option('itemsPerPage', 50)}, ${option('sinceField', 'updatedAt')} and ${option('resume', true)}`;
    expect(renderHint(said, CLI_WORDS)).toBe('give --items-per-page 50, --since-field updatedAt and --resume');
    expect(new UsageError('x', { hint: said }).hint).toBe("give itemsPerPage: 50, sinceField: 'updatedAt' and resume: true");
    expect(renderHint(hint`raise ${option('maxWaitMs')}`, CLI_WORDS)).toBe('raise --max-wait');
  });
});
