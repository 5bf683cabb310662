const OPEN_BRACKET = 0x5b; // [
const OPEN_BRACE = 0x7b; // {
const CLOSE_BRACKET = 0x5d; // ]
const CLOSE_BRACE = 0x7d; // }
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * True when JSON `text` opens more than `max` arrays and objects at once. One pass over the raw text, counting
 * `[` and `{` outside strings, before any parser or schema sees it (a 60 KiB body of nested `[` costs the schema
 * validator half a second of CPU). Text that is not JSON gets an answer too; the parser refuses it afterwards.
 */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === BACKSLASH) i++;
      else if (char === QUOTE) inString = false;
    } else if (char === QUOTE) {
      inString = true;
    } else if (char === OPEN_BRACKET || char === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if ((char === CLOSE_BRACKET || char === CLOSE_BRACE) && depth > 0) {
      depth--;
    }
  }
  return false;
}

/** Elysia parses a body as JSON when its content type's 13th character is `j` (`application/json`, `…/json-seq`). */
export const isJsonContentType = (contentType: string) => contentType.charCodeAt(12) === 0x6a;
