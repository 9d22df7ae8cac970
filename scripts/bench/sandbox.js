// The sandbox of `npm run bench`, in its own process (forked with an IPC channel by run.js), so the
// client under test does not share its event loop or CPU time with the server. It is the same
// sandbox `collections sandbox` serves (dist/sandbox), with its request counters reachable over IPC.
//
// Messages in:  { type: 'stats' } → { type: 'stats', stats }; { type: 'first' } → { type: 'first', at }
//               (epoch ms of the first request since the last such message, then forgotten);
//               { type: 'log' } → { type: 'log', log } (each request since the last such message: `at`
//               arrival and `done` answer, epoch ms, and `status`, then forgotten);
//               { type: 'stop' } → closes and exits. Options (JSON argument): taxpayers, invoices, limit, window,
//               latency, churn (items a minute changed, sandbox/churn.ts), wire (the bytes, sandbox/wire.ts:
//               default apiplatform, the real service's), cursorEnd (default the sandbox's: endless, see below).
// Message out once listening: { type: 'ready', url, taxpayers }.
import { createSandbox } from '../../dist/sandbox/app.js';
import { startSandboxServer } from '../../dist/sandbox/server.js';

const options = JSON.parse(process.argv[2] ?? '{}');
const sandbox = createSandbox({
  limit: options.limit ?? 0,
  windowSeconds: options.window ?? 60,
  latencyMs: options.latency ?? 0,
  warmAhead: true,
  sizes: { taxpayers: options.taxpayers ?? 1, invoicesPerTaxpayer: options.invoices ?? 1000 },
  ...(options.churn ? { churn: options.churn } : {}),
  wire: options.wire ?? 'apiplatform',
  // The sandbox's default unless asked: API Platform ≥ 4.3.5's chain, which never ends by itself
  // (every cursor page links next), so a cursor export ends at the first empty page, as against the real service.
  ...(options.cursorEnd ? { cursorEnd: options.cursorEnd } : {}),
});
// When the first request since the last `first` message arrived, epoch ms (sub-ms, comparable
// with the bench's own performance.timeOrigin + performance.now()): the time-to-first-request row.
let firstAt;
let log = [];
const reply = sandbox.reply.bind(sandbox);
const epochNow = () => performance.timeOrigin + performance.now();
sandbox.reply = async (request, signal) => {
  const at = epochNow();
  firstAt ??= at;
  const answer = await reply(request, signal);
  log.push({ at, done: epochNow(), status: answer.status });
  return answer;
};
const server = await startSandboxServer(sandbox, { host: '127.0.0.1', port: 0 });
process.on('message', (msg) => {
  if (msg.type === 'stats') process.send({ type: 'stats', stats: sandbox.stats() });
  if (msg.type === 'first') {
    process.send({ type: 'first', at: firstAt ?? null });
    firstAt = undefined;
  }
  if (msg.type === 'log') {
    process.send({ type: 'log', log });
    log = [];
  }
  if (msg.type === 'stop') void server.close().then(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
if (process.send) process.send({ type: 'ready', url: server.url, taxpayers: sandbox.taxpayers() });
else process.stdout.write(`${server.url} ${sandbox.taxpayers()[0]}\n`); // started by hand: node scripts/bench/sandbox.js '{"limit":10}'
