import { describe, expect, it } from 'vitest';
import { inertText } from '../../../src/io/terminal-text.js';

describe('inertText', () => {
  it.each([
    ['OSC title ended by BEL', 'a\u001b]0;title\u0007b', 'ab'],
    ['OSC title ended by ST (ESC \\)', 'a\u001b]0;title\u001b\\b', 'ab'],
    ['OSC ended by 8-bit ST', 'a\u001b]2;x\u009cb', 'ab'],
    ['OSC 8 hyperlink', '\u001b]8;;https://evil.example/\u001b\\click\u001b]8;;\u001b\\', 'click'],
    ['8-bit OSC', 'a\u009d0;t\u0007b', 'ab'],
    ['unterminated OSC swallows the rest', 'ok\u001b]0;never ends', 'ok'],
    ['DCS', 'a\u001bPq#0;1\u001b\\b', 'ab'],
    ['APC, PM and SOS', '\u001b_x\u001b\\\u001b^y\u001b\\\u001bXz\u001b\\v', 'v'],
    ['CSI erase display', '\u001b[2Jclean', 'clean'],
    ['CSI colour', 'a\u001b[1;31mred\u001b[0m', 'ared'],
    ['CSI private mode (hide cursor)', '\u001b[?25lx', 'x'],
    ['8-bit CSI', '\u009b31mred', 'red'],
    ['ESC c (reset) and charset switch', '\u001bc\u001b(0x', 'x'],
    ['lone ESC at the end', 'x\u001b', 'x'],
    ['CR (overwrites the line)', 'fake\rreal', 'fake real'],
    ['CR LF', 'a\r\nb', 'a  b'],
    ['TAB, VT, FF, NEL, LS, PS', 'a\tb\u000bc\u000cd\u0085e\u2028f\u2029g', 'a b c d e f g'],
    ['BEL, NUL, BS, DEL', 'a\u0007b\u0000c\u0008d\u007fe', 'abcde'],
    ['other C1 controls', 'a\u0080b\u0099c', 'abc'],
    ['8-bit APC swallows its string', 'a\u009fhidden\u009cb', 'ab'],
    ['right-to-left override', 'invoice\u202egnp.exe', 'invoicegnp.exe'],
    ['embeddings, overrides, isolates', '\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069x', 'x'],
    ['bidi marks', 'a\u200eb\u200fc\u061cd', 'abcd'],
  ])('%s', (_name, input, expected) => {
    expect(inertText(input)).toBe(expected);
  });

  it.each([['plain text'], ['COMERCIALIZADORA DEL VALLE SA DE CV'], ['wide 中文 and é combining e\u0301'], ['emoji 🧾'], ['']])(
    'keeps printable text as it is: %s',
    (text) => {
      expect(inertText(text)).toBe(text);
    },
  );

  it('leaves nothing a terminal acts on in a mix of every kind', () => {
    const ugly = '\u001b]0;t\u0007\u001b[2J\u009b31m\u202e\r\u001bP1\u001b\\\u0000x';
    // eslint-disable-next-line no-control-regex -- the test looks for control characters on purpose
    expect(inertText(ugly)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(inertText(ugly)).toBe(' x');
  });
});
