/**
 * nlohmann::json's parse_error.101 text for a malformed body, as llama.cpp returns it (500 server_error).
 *
 * The real server's words depend on how nlohmann's lexer reads the bytes, so this follows it step for step
 * (vendor/nlohmann/json.hpp of the pinned llama.cpp source): the position is the count of bytes read when the
 * error is raised, EOF included and an `unget()` subtracted; "last read" is the lexer's token_string, which only
 * a string or a number resets, so after `{"a": tru}` it is `"a": tru}`. The parser is iterative, as nlohmann's is,
 * so a deeply nested body cannot overflow the stack. Not followed: UTF-8 validation inside strings (bodies reach
 * the simulator as valid UTF-8) and number overflow.
 */

type Token =
  | 'uninitialized' | 'true literal' | 'false literal' | 'null literal' | 'string literal' | 'number literal'
  | "'['" | "'{'" | "']'" | "'}'" | "':'" | "','" | 'parse error' | 'end of input' | "'[', '{', or a literal";

const EOF = -1;
const STRUCTURAL: Readonly<Record<string, Token>> = { '[': "'['", '{': "'{'", ']': "']'", '}': "'}'", ':': "':'", ',': "','" };
const LITERALS: Readonly<Record<string, Token>> = { t: 'true literal', f: 'false literal', n: 'null literal' };
const LITERAL_TEXT: Readonly<Record<string, string>> = { t: 'true', f: 'false', n: 'null' };
const CONTROL_NAMES = ['NUL', 'SOH', 'STX', 'ETX', 'EOT', 'ENQ', 'ACK', 'BEL', 'BS', 'HT', 'LF', 'VT', 'FF', 'CR', 'SO', 'SI', 'DLE', 'DC1', 'DC2', 'DC3', 'DC4', 'NAK', 'SYN', 'ETB', 'CAN', 'EM', 'SUB', 'ESC', 'FS', 'GS', 'RS', 'US'];
const SHORT_ESCAPES: Readonly<Record<number, string>> = { 8: 'b', 9: 't', 10: 'n', 12: 'f', 13: 'r' };

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const hex4 = (n: number): string => n.toString(16).toUpperCase().padStart(4, '0');

function controlCharacterError(c: number): string {
  const short = SHORT_ESCAPES[c];
  return `invalid string: control character U+${hex4(c)} (${CONTROL_NAMES[c] ?? ''}) must be escaped to \\u${hex4(c)}${short === undefined ? '' : ` or \\${short}`}`;
}

/** nlohmann's lexer: bytes in, tokens out, with its position and token_string bookkeeping. */
class Lexer {
  private index = 0;
  private current = EOF;
  private nextUnget = false;
  private tokenBytes: number[] = [];
  charsRead = 0;
  charsReadLine = 0;
  linesRead = 0;
  errorMessage = '';

  constructor(private readonly bytes: Uint8Array) {}

  private get(): number {
    this.charsRead++;
    this.charsReadLine++;
    if (this.nextUnget) this.nextUnget = false;
    else this.current = this.index < this.bytes.length ? (this.bytes[this.index++] ?? EOF) : EOF;
    if (this.current !== EOF) this.tokenBytes.push(this.current);
    if (this.current === 0x0a) {
      this.linesRead++;
      this.charsReadLine = 0;
    }
    return this.current;
  }

  private unget(): void {
    this.nextUnget = true;
    this.charsRead--;
    if (this.charsReadLine === 0) this.linesRead = Math.max(0, this.linesRead - 1);
    else this.charsReadLine--;
    if (this.current !== EOF) this.tokenBytes.pop();
  }

  private reset(): void {
    this.tokenBytes = [this.current];
  }

  private fail(message: string): Token {
    this.errorMessage = message;
    return 'parse error';
  }

  /** get_token_string(): control characters as <U+XXXX>. */
  tokenString(): string {
    const bytes = this.tokenBytes.flatMap((b) => (b <= 0x1f ? [...Buffer.from(`<U+${hex4(b)}>`)] : [b]));
    return Buffer.from(bytes).toString('utf8');
  }

  scan(): Token {
    do this.get();
    while (this.current === 0x20 || this.current === 0x09 || this.current === 0x0a || this.current === 0x0d);
    if (this.current === EOF || this.current === 0) return 'end of input';
    const c = String.fromCharCode(this.current);
    const structural = STRUCTURAL[c];
    if (structural !== undefined) return structural;
    const literal = LITERALS[c];
    if (literal !== undefined) return this.scanLiteral(LITERAL_TEXT[c] ?? '', literal);
    if (c === '"') return this.scanString();
    if (c === '-' || isDigit(this.current)) return this.scanNumber();
    return this.fail('invalid literal');
  }

  private scanLiteral(text: string, token: Token): Token {
    for (let i = 1; i < text.length; i++) if (this.get() !== text.charCodeAt(i)) return this.fail('invalid literal');
    return token;
  }

  private scanString(): Token {
    this.reset();
    for (;;) {
      const c = this.get();
      if (c === EOF) return this.fail('invalid string: missing closing quote');
      if (c === 0x22) return 'string literal';
      if (c <= 0x1f) return this.fail(controlCharacterError(c));
      if (c !== 0x5c) continue;
      const escaped = this.get();
      if ('"\\/bfnrt'.includes(String.fromCharCode(escaped)) && escaped !== EOF) continue;
      if (escaped !== 0x75) return this.fail('invalid string: forbidden character after backslash');
      const error = this.scanUnicodeEscape();
      if (error !== undefined) return this.fail(error);
    }
  }

  private codepoint(): number {
    let value = 0;
    for (let i = 0; i < 4; i++) {
      const c = this.get();
      if (!isHex(c)) return -1;
      value = value * 16 + parseInt(String.fromCharCode(c), 16);
    }
    return value;
  }

  private scanUnicodeEscape(): string | undefined {
    const hexError = "invalid string: '\\u' must be followed by 4 hex digits";
    const surrogateError = 'invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF';
    const first = this.codepoint();
    if (first === -1) return hexError;
    if (first >= 0xdc00 && first <= 0xdfff) return 'invalid string: surrogate U+DC00..U+DFFF must follow U+D800..U+DBFF';
    if (first < 0xd800 || first > 0xdbff) return undefined;
    if (this.get() !== 0x5c || this.get() !== 0x75) return surrogateError;
    const second = this.codepoint();
    if (second === -1) return hexError;
    return second >= 0xdc00 && second <= 0xdfff ? undefined : surrogateError;
  }

  /** The number state machine of lexer::scan_number, without the value conversion. */
  private scanNumber(): Token {
    this.reset();
    let c = this.current;
    if (c === 0x2d) {
      c = this.get();
      if (!isDigit(c)) return this.fail("invalid number; expected digit after '-'");
    }
    if (c !== 0x30) while (isDigit((c = this.get())));
    else c = this.get();
    if (c === 0x2e) {
      if (!isDigit(this.get())) return this.fail("invalid number; expected digit after '.'");
      while (isDigit((c = this.get())));
    }
    if (c === 0x65 || c === 0x45) {
      c = this.get();
      if (c === 0x2b || c === 0x2d) {
        if (!isDigit(this.get())) return this.fail('invalid number; expected digit after exponent sign');
      } else if (!isDigit(c)) return this.fail("invalid number; expected '+', '-', or digit after exponent");
      while (isDigit(this.get()));
    }
    this.unget();
    return 'number literal';
  }
}

class ParseFailure extends Error {}

/** nlohmann's parser::sax_parse_internal, reduced to accepting or rejecting; throws a ParseFailure. */
class Parser {
  private last: Token = 'uninitialized';

  constructor(private readonly lexer: Lexer) {}

  private next(): Token {
    this.last = this.lexer.scan();
    return this.last;
  }

  private error(expected: Token, context: string): never {
    const l = this.lexer;
    const got = this.last === 'parse error' ? `${l.errorMessage}; last read: '${l.tokenString()}'` : `unexpected ${this.last}`;
    const tail = expected === 'uninitialized' ? '' : `; expected ${expected}`;
    throw new ParseFailure(`parse error at line ${l.linesRead + 1}, column ${l.charsReadLine}: syntax error while parsing ${context} - ${got}${tail}`);
  }

  /** Object key, separator and the token after it (the value's first token). */
  private member(): void {
    if (this.last !== 'string literal') this.error('string literal', 'object key');
    if (this.next() !== "':'") this.error("':'", 'object separator');
    this.next();
  }

  parse(): void {
    this.next();
    const inArray: boolean[] = [];
    let skipValue = false;
    for (;;) {
      if (!skipValue) {
        if (this.last === "'{'") {
          if (this.next() !== "'}'") {
            this.member();
            inArray.push(false);
            continue;
          }
        } else if (this.last === "'['") {
          if (this.next() !== "']'") {
            inArray.push(true);
            continue;
          }
        } else if (this.last === 'parse error') this.error('uninitialized', 'value');
        else if (this.last === 'end of input' && this.lexer.charsRead === 1) {
          throw new ParseFailure('parse error at line 1, column 1: attempting to parse an empty input; check that your input string or stream contains the expected JSON');
        } else if (!['true literal', 'false literal', 'null literal', 'string literal', 'number literal'].includes(this.last)) {
          this.error("'[', '{', or a literal", 'value');
        }
      }
      skipValue = false;
      if (inArray.length === 0) break;
      const array = inArray[inArray.length - 1] === true;
      if (this.next() === "','") {
        if (array) this.next();
        else {
          this.next();
          this.member();
        }
        continue;
      }
      if (this.last === (array ? "']'" : "'}'")) {
        inArray.pop();
        skipValue = true;
        continue;
      }
      this.error(array ? "']'" : "'}'", array ? 'array' : 'object');
    }
    if (this.next() !== 'end of input') this.error('end of input', 'value');
  }
}

/** The message of nlohmann's parse_error.101 for `text`, or undefined when it is valid JSON. */
export function nlohmannParseError(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch {
    // malformed: find nlohmann's words for it below
  }
  try {
    new Parser(new Lexer(Buffer.from(text, 'utf8'))).parse();
    return undefined;
  } catch (e) {
    if (e instanceof ParseFailure) return `[json.exception.parse_error.101] ${e.message}`;
    throw e;
  }
}
