/**
 * `collections config` (README, "Configuration"). Data goes to stdout, confirmations and warnings to
 * stderr; the API key is only ever shown masked, and read from stdin to stay out of shell history and `ps`.
 */
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { Context, IOStreams } from '../../context.js';
import { openConfigStore, stderrWarner } from '../../config/settings.js';
import type { SettingsFlags } from '../../config/settings.js';
import { DEFAULT_PROFILE } from '../../config/store.js';
import type { ConfigStore } from '../../config/store.js';
import { CONFIG_KEYS, type ConfigKey } from '../../config/flags.js';
import { maskedBudget, parseConfigKey, parseProfileName, storedHeaderName, type ProfileValues } from '../../config/values.js';
import { ExitCode, InterruptedError, UsageError } from '../../errors.js';
import { isSecretHeaderName, maskSecret } from '../../http/redact.js';
import { inertText } from '../../io/terminal-text.js';
import type { Secrets } from '../../secrets.js';

export type ConfigAction = 'set' | 'get' | 'unset' | 'list' | 'profiles' | 'path';

export interface ConfigCommandOptions extends SettingsFlags {
  /** Checked by the command. */
  action: ConfigAction | undefined;
  args: readonly string[];
}

/** @throws as {@link profileInUse}, {@link runConfigOverview} and {@link runConfigAction} */
export function runConfig(ctx: Context, options: ConfigCommandOptions): number | Promise<number> {
  const profile = profileInUse(options, ctx);
  const store = openConfigStore(ctx);
  if (options.action === undefined) return runConfigOverview(profile, store, ctx);
  return runConfigAction(options.action, options.args, profile, store, ctx);
}

function displayHeader(text: string, secrets: Pick<Secrets, 'showHeader'>): string {
  const name = storedHeaderName(text);
  return `${name}: ${secrets.showHeader(name, text.slice(name.length + 1).trim())}`;
}

/** One text per line; the key, a credential-like header value and a budget URL's password masked. */
function display(key: ConfigKey, value: string | number | string[], secrets: Pick<Secrets, 'showHeader'>): string[] {
  const shown =
    key === 'header' ? (h: string) => displayHeader(h, secrets) : key === 'budget' ? maskedBudget : key === 'api-key' ? maskSecret : String;
  return (Array.isArray(value) ? value : [String(value)]).map((text) => shown(text));
}

/**
 * readline in terminal mode puts the terminal in raw mode (no echo); its own echo goes to a muted
 * stream. Not a prompt package (`read`, `@inquirer/password`): those mute an output stream, do not
 * refuse a terminal without raw mode, and report Ctrl-C in their own way.
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

/** Undefined when stdin is empty. */
async function readFirstLine(stdin: IOStreams['stdin']): Promise<string | undefined> {
  const rl = createInterface({ input: stdin, terminal: false, crlfDelay: Infinity });
  try {
    for await (const line of rl) return line;
    return undefined;
  } finally {
    rl.close();
  }
}

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

const textLines = (texts: readonly string[]): string => texts.map((text) => `${text}\n`).join('');

/** In {@link CONFIG_KEYS} order. */
function settingLines(values: ProfileValues, secrets: Pick<Secrets, 'showHeader'>): string[] {
  return CONFIG_KEYS.filter((k) => values[k] !== undefined).flatMap((k) => display(k, values[k]!, secrets).map((v) => `${k}=${v}\n`));
}

/** `--profile`, else `COLLECTIONS_PROFILE`, else `default`. @throws {UsageError} (exit 2) for an ill-formed name */
function profileInUse(options: SettingsFlags, ctx: Pick<Context, 'env'>): string {
  return parseProfileName(options.profile ?? (ctx.env.COLLECTIONS_PROFILE || DEFAULT_PROFILE));
}

function expectArgs(action: ConfigAction, args: readonly string[], min: number, max: number, usage: string): void {
  if (args.length < min || args.length > max) {
    throw new UsageError(`wrong number of arguments for \`config ${action}\``, { hint: `usage: collections config ${usage}` });
  }
}

/**
 * `unset` of a key that was not set is not an error.
 * @throws {UsageError} (exit 2) for unknown keys, invalid values, wrong arity, a `get` of a key that
 *   is not set, or a missing key on stdin; {@link InterruptedError} (130) when the prompt is
 *   cancelled with Ctrl-C
 */
async function runConfigAction(action: ConfigAction, args: readonly string[], profile: string, store: ConfigStore, ctx: Context): Promise<number> {
  const { io } = ctx;
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
      io.stdout.write(textLines(store.profiles().map(parseProfileName)));
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
      io.stdout.write(textLines(display(key, value, ctx.secrets)));
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
 * `config` alone: every profile on stdout; on stderr the profile in use and the file, or how to start.
 * @throws {UsageError} (exit 2) for an invalid profile name in the file or an invalid stored value
 */
function runConfigOverview(inUse: string, store: ConfigStore, ctx: Context): number {
  const { io } = ctx;
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
