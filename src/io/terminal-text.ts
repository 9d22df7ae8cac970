/** What reaches a terminal (never data files, which stay byte-exact): text from outside made inert, and the width tables fit. */
import type { IOStreams } from '../context.js';

/**
 * Escape sequences by ECMA-48 (5th edition, 5.3 to 5.6), in the order they must be tried:
 * 1. control strings (OSC, DCS, SOS, PM, APC, 7- and 8-bit) up to BEL (xterm's OSC ending) or ST,
 *    or to the end of the text when there is none (a terminal would swallow the rest too);
 * 2. CSI: parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, a final byte 0x40–0x7E;
 * 3. any other: ESC, intermediate bytes, a final byte 0x30–0x7E (`ESC c` resets the terminal), or a lone ESC.
 */
const ESCAPE_SEQUENCE = new RegExp(
  [
    '(?:\\u001b[\\]PX^_]|[\\u0090\\u0098\\u009d\\u009e\\u009f])[^\\u0007\\u001b\\u009c]*(?:\\u0007|\\u001b\\\\|\\u009c)?',
    '(?:\\u001b\\[|\\u009b)[\\u0030-\\u003f]*[\\u0020-\\u002f]*[\\u0040-\\u007e]?',
    '\\u001b[\\u0020-\\u002f]*[\\u0030-\\u007e]?',
  ].join('|'),
  'g',
);

const SPACING = /[\t\n\v\f\r\u0085\u2028\u2029]/g;

/**
 * Removed once sequences are gone: the other C0 and C1 controls, DEL, and Bidi_Control (UAX #9),
 * which can make text display in another order than it is read (CVE-2021-42574, "Trojan Source").
 */
// eslint-disable-next-line no-control-regex -- it matches control characters on purpose, to remove them
const REMOVED = /[\u0000-\u001f\u007f-\u009f\p{Bidi_Control}]/gu;

// eslint-disable-next-line no-control-regex -- it looks for control characters on purpose
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Bidi_Control}]/u;

/**
 * Text from outside, inert for a terminal: escape sequences removed whole, each line break a space
 * (a one-line message stays one line, a cell one row), other controls and bidi controls removed.
 * @example inertText('\u001b]0;owned\u0007bad\u001b[2J key') → 'bad key'
 */
export function inertText(text: string): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(ESCAPE_SEQUENCE, '').replace(SPACING, ' ').replace(REMOVED, '');
}

/**
 * The width to fit a table to, in columns: `COLUMNS` when a positive whole number (also when piped:
 * POSIX's "the user's preferred width"), else the terminal's, else undefined.
 */
export function outputColumns(io: Pick<IOStreams, 'columns'>, env: Readonly<Record<string, string | undefined>>): number | undefined {
  const fromEnv = env.COLUMNS !== undefined && /^\d{1,5}$/.test(env.COLUMNS) ? Number(env.COLUMNS) : 0;
  return fromEnv > 0 ? fromEnv : io.columns;
}
