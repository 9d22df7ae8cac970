/**
 * The one reading of the raw command line outside commander: what main() and the process guard must
 * know before (or without) commander having parsed the flags, since a failure can happen before the
 * parse ends (an unknown option, a bad value) or outside it (an uncaught exception). Read once, in
 * {@link readCommandLine}; everything else uses the {@link CommandLine} it returns, and commander
 * parses {@link CommandLine.words} (cli/program.ts).
 */
import type { LogFormat } from '../io/events.js';

/** The command line as main() and the guard see it. */
export interface CommandLine {
  /** The words after the program name, as given (commander parses these). */
  readonly words: readonly string[];
  /** `--version` (or `-V`) alone: answered without loading commander. */
  readonly versionOnly: boolean;
  /**
   * The last `--log-format X` or `--log-format=X` before a `--`: `json` when X is `json`, else `text`
   * (absent, or a value commander then reports).
   */
  readonly logFormat: LogFormat;
  /** `--verbose` (or `-v`) before any `--`: an internal error is shown with its stack (cli/guard.ts `wantsStack`). */
  readonly verbose: boolean;
  /** The words to repeat in the "resume with" hint: without the API key (`--api-key K`, `--api-key=K`) and `--resume`. */
  readonly resumeWords: readonly string[];
}

/** The last `--log-format` value before a `--` (see {@link CommandLine.logFormat}). */
function logFormatOf(words: readonly string[]): LogFormat {
  let found: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--') break;
    if (word === '--log-format') found = words[++i];
    else if (word.startsWith('--log-format=')) found = word.slice('--log-format='.length);
  }
  return found === 'json' ? 'json' : 'text';
}

/** The words without the API key and `--resume` (see {@link CommandLine.resumeWords}). */
function resumeWordsOf(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--api-key') {
      i++;
      continue;
    }
    if (word.startsWith('--api-key=')) continue;
    if (word === '--resume') continue;
    out.push(word);
  }
  return out;
}

/**
 * Reads the command line `words` (without `node` and the script) once.
 * @returns what main(), the guard and the export commands need of it; the words themselves for commander
 */
export function readCommandLine(words: readonly string[]): CommandLine {
  const end = words.indexOf('--');
  const options = end === -1 ? words : words.slice(0, end);
  return {
    words,
    versionOnly: words.length === 1 && (words[0] === '--version' || words[0] === '-V'),
    logFormat: logFormatOf(words),
    verbose: options.some((w) => w === '--verbose' || w === '-v'),
    resumeWords: resumeWordsOf(words),
  };
}
