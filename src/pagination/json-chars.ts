/**
 * The UTF-16 code units of JSON's structural characters (RFC 8259 §2, §7), shared by the depth
 * guard (json-depth.ts) and the page scanner (json-scan.ts), which compare `charCodeAt` results.
 */

/** `"`. */
export const QUOTE = 0x22;
/** `\`. */
export const BACKSLASH = 0x5c;
/** `{`. */
export const LBRACE = 0x7b;
/** `}`. */
export const RBRACE = 0x7d;
/** `[`. */
export const LBRACKET = 0x5b;
/** `]`. */
export const RBRACKET = 0x5d;
/** `,`. */
export const COMMA = 0x2c;
