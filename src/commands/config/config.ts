/**
 * `collections config set|get|unset|list|path` (README, "Configuration"): stored settings per profile.
 * Data (values, the path) goes to stdout; confirmations and warnings to stderr. The API key is only
 * ever shown masked (`****abcd`), and `config set api-key` without a value reads it from standard
 * input (a hidden prompt on a terminal) so that it stays out of shell history and `ps`.
 */
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { Context, IOStreams } from '../../context.js';
import { openConfigStore, stderrWarner } from '../../config/settings.js';
import type { SettingsFlags } from '../../config/settings.js';
import { DEFAULT_PROFILE } from '../../config/store.js';
import type { ConfigStore } from '../../config/store.js';
import { CONFIG_KEYS, parseConfigKey, parseProfileName, storedHeaderName } from '../../config/values.js';
import type { ConfigKey, ProfileValues } from '../../config/values.js';
import { ExitCode, InterruptedError, UsageError } from '../../errors.js';
import { isSecretHeaderName, maskSecret } from '../../http/redact.js';
import { inertText } from '../../io/terminal-text.js';
import type { Secrets } from '../../secrets.js';

/** `config` alone (no action) shows every profile. */
export type ConfigAction = 'set' | 'get' | 'unset' | 'list' | 'profiles' | 'path';

/** Options of {@link runConfigAction} and {@link runConfigOverview}: the global flags (only `profile` is used) and, for tests, a store. */
export interface ConfigOptions extends SettingsFlags {
  /** A store to use instead of opening the one of `ctx.configDir`. */
  store?: ConfigStore;
}

/** What the `config` command (commands/config-command.ts) hands {@link runConfig}: the global flags, the action and its arguments. */
export interface ConfigCommandOptions extends ConfigOptions {
  /** The action (checked by the command); undefined: `config` alone. */
  action: ConfigAction | undefined;
  /** The positional arguments after the action. */
  args: readonly string[];
}

/**
 * Runs `config`: {@link runConfigOverview} without an action, else {@link runConfigAction}.
 * @returns 0
 * @throws as those do
 */
export function runConfig(ctx: Context, options: ConfigCommandOptions): number | Promise<number> {
  if (options.action === undefined) return runConfigOverview(options, ctx);
  return runConfigAction(options.action, options.args, options, ctx);
}

function displayHeader(text: string, secrets: Pick<Secrets, 'showHeader'>): string {
  const name = storedHeaderName(text);
  return `${name}: ${secrets.showHeader(name, text.slice(name.length + 1).trim())}`;
}

/** How a value is displayed, one text per line: the key and a credential-like header value masked. */
function display(key: ConfigKey, value: string | number | string[], secrets: Pick<Secrets, 'showHeader'>): string[] {
  if (Array.isArray(value)) return value.map((h) => displayHeader(h, secrets));
  if (key === 'header') return [displayHeader(String(value), secrets)];
  return [key === 'api-key' ? maskSecret(String(value)) : String(value)];
}

/**
 * Reads one line from a terminal without echo: readline in terminal mode (which puts the terminal
 * in raw mode, so the terminal does not echo) with its own echo sent to a muted stream. The prompt
 * goes to stderr so stdout stays clean.
 *
 * Kept rather than replaced by a prompt package (`read`, `password-prompt`, `@inquirer/password`):
 * those hide the echo by muting an output stream, do not refuse a terminal that cannot switch to
 * raw mode, and report Ctrl-C in their own way; these lines over `node:readline` keep the behaviour
 * the tests pin (no echo, refusal without raw mode, Ctrl-C as exit 130, Ctrl-D as a usage error)
 * with no dependency.
 * @throws {InterruptedError} on Ctrl-C; {@link UsageError} on end of input (Ctrl-D) or when the
 *   terminal cannot be switched to raw mode (typed text would be echoed)
 */
async function promptHidden(io: Pick<IOStreams, 'stdin' | 'stderr'>, prompt: string): Promise<string> {
  if (typeof io.stdin.setRawMode !== 'function') {
    throw new UsageError('cannot read the key without echo on this terminal', {
      hint: 'pipe it instead: printf \'%s\\n\' "$KEY" | collections config set api-key',
    });
  }
  io.stderr.write(prompt);
  const muted = new Writable({
    write(_chunk, _encoding, callback) {
      callback();
    },
  });
  const rl = createInterface({ input: io.stdin, output: muted, terminal: true });
  try {
    return await new Promise<string>((resolve, reject) => {
      rl.once('line', resolve);
      rl.once('SIGINT', () => reject(new InterruptedError('SIGINT', 'cancelled')));
      rl.once('close', () => reject(new UsageError('no API key entered')));
    });
  } finally {
    rl.close();
    io.stderr.write('\n');
  }
}

/**
 * Reads the first line of a non-terminal stdin (a pipe or a file), without its line ending.
 * @returns undefined when stdin is empty
 */
async function readFirstLine(stdin: IOStreams['stdin']): Promise<string | undefined> {
  const rl = createInterface({ input: stdin, terminal: false, crlfDelay: Infinity });
  try {
    for await (const line of rl) return line;
    return undefined;
  } finally {
    rl.close();
  }
}

/** Reads the API key for `config set api-key`: hidden prompt on a terminal, else one line. */
async function readApiKey(io: IOStreams): Promise<string> {
  const line = io.stdinIsTTY ? await promptHidden(io, 'API key (input hidden): ') : await readFirstLine(io.stdin);
  if (line === undefined || line.trim() === '') {
    throw new UsageError('no API key given on standard input', {
      hint: 'type it at the prompt, or pipe it: printf \'%s\\n\' "$KEY" | collections config set api-key',
    });
  }
  return line;
}

/** VALUE, or for `api-key` without one a line of stdin; a key or credential given as an argument is warned about. */
async function valueToSet(key: ConfigKey, raw: string | undefined, io: IOStreams): Promise<string> {
  if (raw === undefined) {
    if (key !== 'api-key') throw new UsageError(`config set ${key} needs a value`, { hint: `usage: collections config set ${key} VALUE` });
    return readApiKey(io);
  }
  if (key === 'api-key') {
    stderrWarner(io)(
      'a key given as an argument stays in your shell history; next time run `collections config set api-key` and paste it at the prompt',
    );
  } else if (key === 'header' && isSecretHeaderName(storedHeaderName(raw))) {
    stderrWarner(io)('a credential given as an argument stays in your shell history (and `ps`); clear it from the history');
  }
  return raw;
}

/** The `key=value` lines of a profile's values, in {@link CONFIG_KEYS} order, the key masked. */
function settingLines(values: ProfileValues, secrets: Pick<Secrets, 'showHeader'>): string[] {
  return CONFIG_KEYS.filter((k) => values[k] !== undefined).flatMap((k) => display(k, values[k]!, secrets).map((v) => `${k}=${v}\n`));
}

/**
 * The profile a command uses: `--profile`, else `COLLECTIONS_PROFILE`, else `default`.
 * @throws {UsageError} (exit 2) for an ill-formed name
 */
function profileInUse(options: SettingsFlags, ctx: Pick<Context, 'env'>): string {
  return parseProfileName(options.profile ?? (ctx.env.COLLECTIONS_PROFILE || DEFAULT_PROFILE));
}

function expectArgs(action: ConfigAction, args: readonly string[], min: number, max: number, usage: string): void {
  if (args.length < min || args.length > max) {
    throw new UsageError(`wrong number of arguments for \`config ${action}\``, { hint: `usage: collections config ${usage}` });
  }
}

/**
 * Runs `config <action> [args…]`.
 * - `set KEY [VALUE]`: validates and stores; `api-key` without VALUE reads stdin (see
 *   {@link promptHidden}); a key given as an argument is stored with a warning about shell history.
 * - `get KEY`: prints the value (the API key masked, `****abcd`; a header a line).
 * - `unset KEY`: removes it (not an error when it was not set); `unset header NAME` removes one header.
 * - `list`: prints `key=value` lines of the profile (key masked).
 * - `profiles`: prints the names of the stored profiles, one a line, sorted.
 * - `path`: prints the config file's absolute path.
 * @param args the positional arguments after the action
 * @returns 0
 * @throws {UsageError} (exit 2) for unknown keys, invalid values or profile names, wrong arity, a
 *   `get` of a key that is not set, or a missing key on stdin; {@link InterruptedError} (130) when
 *   the prompt is cancelled with Ctrl-C
 */
async function runConfigAction(action: ConfigAction, args: readonly string[], options: ConfigOptions, ctx: Context): Promise<number> {
  const { io } = ctx;
  const profile = profileInUse(options, ctx);
  const store = options.store ?? openConfigStore(ctx);
  const inProfile = `profile '${profile}'`;

  switch (action) {
    case 'path':
      expectArgs(action, args, 0, 0, 'path');
      io.stdout.write(`${store.path}\n`);
      return ExitCode.Ok;

    case 'list': {
      expectArgs(action, args, 0, 0, 'list');
      const lines = settingLines(store.getProfile(profile), ctx.secrets);
      io.stdout.write(lines.join(''));
      if (lines.length === 0) {
        const others = store.profiles();
        io.stderr.write(`Nothing is stored in ${inProfile}${others.length ? ` (stored profiles: ${others.join(', ')})` : ''}.\n`);
      }
      return ExitCode.Ok;
    }

    case 'profiles':
      expectArgs(action, args, 0, 0, 'profiles');
      io.stdout.write(
        store
          .profiles()
          .map((name) => `${parseProfileName(name)}\n`)
          .join(''),
      );
      return ExitCode.Ok;

    case 'get': {
      expectArgs(action, args, 1, 1, 'get KEY');
      const key = parseConfigKey(args[0]!);
      const value = store.getProfile(profile)[key];
      if (value === undefined) {
        throw new UsageError(`${key} is not set in ${inProfile}`, {
          hint: `run \`collections config set ${key}${key === 'api-key' ? '' : ' VALUE'}${profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`}\``,
        });
      }
      io.stdout.write(
        display(key, value, ctx.secrets)
          .map((line) => `${line}\n`)
          .join(''),
      );
      return ExitCode.Ok;
    }

    case 'unset': {
      const header = args[0] === 'header';
      expectArgs(action, args, 1, header ? 2 : 1, header ? 'unset header [NAME]' : 'unset KEY');
      const key = parseConfigKey(args[0]!);
      const removed = store.unset(profile, key, args[1]);
      const what = args[1] === undefined ? key : `header ${inertText(args[1])}`;
      io.stderr.write(removed ? `Removed ${what} from ${inProfile}.\n` : `${what} was not set in ${inProfile}.\n`);
      return ExitCode.Ok;
    }

    case 'set': {
      expectArgs(action, args, 1, 2, 'set KEY [VALUE]');
      const key = parseConfigKey(args[0]!);
      const stored = store.set(profile, key, await valueToSet(key, args[1], io));
      io.stderr.write(`Saved ${key} ${display(key, stored, ctx.secrets).join(' ')} in ${inProfile} (${store.path}).\n`);
      if (key === 'base-url' && store.getProfile(profile)['api-key'] !== undefined) {
        io.stderr.write(`The key stored in ${inProfile} will now be sent to ${new URL(String(stored)).origin} only.\n`);
      }
      return ExitCode.Ok;
    }
  }
}

/**
 * Runs `config` alone: every stored profile as a block, `[name]` then its `key=value` lines (the
 * key masked, `****abcd`), blocks separated by a blank line, on stdout; on stderr, which profile
 * is in use (`--profile`, `COLLECTIONS_PROFILE`, else `default`) and where the file is, or, when
 * nothing is stored, how to start.
 * @returns 0
 * @throws {UsageError} (exit 2) for an invalid profile name (flag, environment or file) or an
 *   invalid stored value
 */
export function runConfigOverview(options: ConfigOptions, ctx: Context): number {
  const { io } = ctx;
  const inUse = profileInUse(options, ctx);
  const store = options.store ?? openConfigStore(ctx);
  const names = store.profiles().map(parseProfileName);
  const blocks = names.map((name) => `[${name}]\n${settingLines(store.getProfile(name), ctx.secrets).join('')}`);
  io.stdout.write(blocks.join('\n'));
  if (names.length === 0) {
    io.stderr.write(`Nothing is stored yet (${store.path}). Start with: collections config set base-url URL\n`);
  } else {
    const note = names.includes(inUse) ? '' : ' (nothing stored in it)';
    io.stderr.write(`In use: profile '${inUse}'${note}, from ${store.path}.\n`);
  }
  return ExitCode.Ok;
}
