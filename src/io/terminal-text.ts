/**
 * Terminal text made inert: what a server, a header, a URL, a field name or a checkpoint says is
 * shown to a person only after {@link inertText} has removed whatever a terminal would act on
 * instead of print (docs/security.md, "Security and safety"). Applied where text reaches a terminal (the
 * error line, progress and warning lines, table cells, the ratelimit table), never to data files
 * (json, ndjson and csv stay byte-exact).
 */

/**
 * Escape sequences by ECMA-48 (5th edition, sections 5.3 to 5.6), in the order they must be tried:
 * 1. control strings: OSC (`ESC ]`, U+009D), DCS (`ESC P`, U+0090), SOS (`ESC X`, U+0098), PM
 *    (`ESC ^`, U+009E) and APC (`ESC _`, U+009F), up to and including the terminator BEL (xterm's
 *    OSC ending) or ST (`ESC \`, U+009C), or to the end of the text when there is none (a terminal
 *    would swallow the rest too);
 * 2. CSI (`ESC [`, U+009B): parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, a final byte
 *    0x40–0x7E (`ESC [2J`, `ESC [31m`, `ESC [?25l`);
 * 3. any other escape sequence: ESC, intermediate bytes 0x20–0x2F, a final byte 0x30–0x7E
 *    (`ESC c` resets the terminal, `ESC ( 0` switches the character set), or a lone ESC.
 */
const ESCAPE_SEQUENCE = new RegExp(
  [
    '(?:\\u001b[\\]PX^_]|[\\u0090\\u0098\\u009d\\u009e\\u009f])[^\\u0007\\u001b\\u009c]*(?:\\u0007|\\u001b\\\\|\\u009c)?',
    '(?:\\u001b\\[|\\u009b)[\\u0030-\\u003f]*[\\u0020-\\u002f]*[\\u0040-\\u007e]?',
    '\\u001b[\\u0020-\\u002f]*[\\u0030-\\u007e]?',
  ].join('|'),
  'g',
);

/** Controls that separate words or lines (TAB, LF, VT, FF, CR, NEL, LINE and PARAGRAPH SEPARATOR): each becomes a space. */
const SPACING = /[\t\n\v\f\r\u0085\u2028\u2029]/g;

/**
 * What is removed once sequences are gone: the other C0 controls, DEL and the C1 controls, and the
 * Unicode property Bidi_Control (UAX #9: ALM U+061C, LRM/RLM U+200E/U+200F, the embeddings and
 * overrides U+202A–U+202E, the isolates U+2066–U+2069), which can make text display in another
 * order than it is read (CVE-2021-42574, "Trojan Source"). The marks are removed as well: in a
 * one-line message or a table cell they only ever change how neighbouring text is shown.
 */
// eslint-disable-next-line no-control-regex -- it matches control characters on purpose, to remove them
const REMOVED = /[\u0000-\u001f\u007f-\u009f\p{Bidi_Control}]/gu;

/** Anything {@link inertText} would change: a control character, a separator or a bidi control. */
// eslint-disable-next-line no-control-regex -- it looks for control characters on purpose
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Bidi_Control}]/u;

/**
 * Makes text from outside inert for a terminal: removes ESC, CSI and control-string (OSC, DCS, SOS,
 * PM, APC) sequences whole, 7-bit and 8-bit forms alike (ECMA-48); turns each tab, line break, CR,
 * NEL and Unicode line or paragraph separator into one space (so a one-line message stays one line
 * and a cell one row); removes every other C0 or C1 control, DEL and every Unicode bidi control.
 * Printable text, including wide and combining characters, is kept as it is. Pure; text with
 * nothing to change is returned as given.
 * @example inertText('\u001b]0;owned\u0007bad\u001b[2J key') → 'bad key'
 * @example inertText('a\r\nb\u202ec') → 'a  bc'
 */
export function inertText(text: string): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(ESCAPE_SEQUENCE, '').replace(SPACING, ' ').replace(REMOVED, '');
}
