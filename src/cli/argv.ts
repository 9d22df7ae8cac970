/**
 * The one reading of the raw command line outside commander: what main() and the process guard must
 * know when a failure comes before commander has parsed the flags, or outside it.
 */
import { exportCommands, GET_COMMAND } from '../endpoints.js';
import type { LogFormat } from '../io/events.js';

export interface CommandLine {
  /** After the program name, as given: commander parses these. */
  readonly words: readonly string[];
  /** `--version` (or `-V`) alone: answered without loading commander. */
  readonly versionOnly: boolean;
  /** Of the last `--log-format` before a `--`; `text` for a value commander then reports. */
  readonly logFormat: LogFormat;
  /** `--verbose` (or `-v`) before any `--`. */
  readonly verbose: boolean;
  /** For the "resume with" hint: without the API key and `--resume`. */
  readonly resumeWords: readonly string[];
  /**
   * The export command (one of the endpoint table's, or `get`) the line runs: its first word, when
   * no `--help` (`-h`) comes before a `--`. Undefined for any other line, e.g. one with an option first.
   */
  readonly exportCommand: string | undefined;
}

/** @param words those before any `--` */
function logFormatOf(words: readonly string[]): LogFormat {
  let found: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--log-format') found = words[++i];
    else if (word.startsWith('--log-format=')) found = word.slice('--log-format='.length);
  }
  return found === 'json' ? 'json' : 'text';
}

function resumeWordsOf(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--api-key') i++;
    else if (word !== '--resume' && !word.startsWith('--api-key=')) out.push(word);
  }
  return out;
}

/** @param words without `node` and the script */
export function readCommandLine(words: readonly string[]): CommandLine {
  const end = words.indexOf('--');
  const options = end === -1 ? words : words.slice(0, end);
  const [first] = words;
  const exports = first !== undefined && (first === GET_COMMAND || exportCommands().includes(first));
  return {
    words,
    versionOnly: words.length === 1 && (first === '--version' || first === '-V'),
    logFormat: logFormatOf(options),
    verbose: options.some((w) => w === '--verbose' || w === '-v'),
    resumeWords: resumeWordsOf(words),
    exportCommand: exports && !options.some((w) => w === '--help' || w === '-h') ? first : undefined,
  };
}
