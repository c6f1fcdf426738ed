/**
 * nlohmann::json-style parse error text for a malformed body, as llama.cpp
 * returns it (500 server_error). A small JSON scanner finds where parsing
 * fails and what was expected; the wording follows nlohmann's lexer/parser.
 * "last read" is approximated as the text from the previous structural
 * character through the offending one (exact for the captured fixture).
 */

export interface JsonFailure {
  readonly pos: number;
  readonly context: 'value' | 'object key' | 'object separator' | 'object' | 'array' | 'end';
  readonly eof: boolean;
}

class Scanner {
  i = 0;
  constructor(readonly s: string) {}

  ws(): void {
    while (this.i < this.s.length && ' \t\n\r'.includes(this.s.charAt(this.i))) this.i++;
  }

  fail(context: JsonFailure['context']): JsonFailure {
    return { pos: this.i, context, eof: this.i >= this.s.length };
  }

  value(): JsonFailure | undefined {
    this.ws();
    const c = this.s.charAt(this.i);
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string() ? undefined : this.fail('value');
    const lit = /^(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)/.exec(this.s.slice(this.i));
    if (lit === null) return this.fail('value');
    this.i += lit[0].length;
    return undefined;
  }

  string(): boolean {
    if (this.s.charAt(this.i) !== '"') return false;
    let j = this.i + 1;
    while (j < this.s.length) {
      const c = this.s.charAt(j);
      if (c === '"') {
        this.i = j + 1;
        return true;
      }
      if (c.charCodeAt(0) < 0x20) return false;
      j += c === '\\' ? 2 : 1;
    }
    return false;
  }

  object(): JsonFailure | undefined {
    this.i++;
    this.ws();
    if (this.s.charAt(this.i) === '}') {
      this.i++;
      return undefined;
    }
    for (;;) {
      this.ws();
      if (!this.string()) return this.fail('object key');
      this.ws();
      if (this.s.charAt(this.i) !== ':') return this.fail('object separator');
      this.i++;
      const f = this.value();
      if (f !== undefined) return f;
      this.ws();
      const c = this.s.charAt(this.i);
      if (c === '}') {
        this.i++;
        return undefined;
      }
      if (c !== ',') return this.fail('object');
      this.i++;
    }
  }

  array(): JsonFailure | undefined {
    this.i++;
    this.ws();
    if (this.s.charAt(this.i) === ']') {
      this.i++;
      return undefined;
    }
    for (;;) {
      const f = this.value();
      if (f !== undefined) return f;
      this.ws();
      const c = this.s.charAt(this.i);
      if (c === ']') {
        this.i++;
        return undefined;
      }
      if (c !== ',') return this.fail('array');
      this.i++;
    }
  }
}

function lineCol(s: string, pos: number): string {
  const before = s.slice(0, pos + 1);
  const line = before.split('\n').length;
  const col = pos + 1 - (before.lastIndexOf('\n') + 1);
  return `line ${line}, column ${col}`;
}

/**
 * Where `text` stops being JSON and what the parser was reading there
 * ('end': trailing text after a complete value); undefined for valid JSON.
 */
export function scanJson(text: string): JsonFailure | undefined {
  const sc = new Scanner(text);
  const f = sc.value();
  if (f !== undefined) return f;
  sc.ws();
  return sc.i >= text.length ? undefined : sc.fail('end');
}

/** The message of nlohmann's parse_error.101 for `text`, or undefined when it is valid JSON. */
export function nlohmannParseError(text: string): string | undefined {
  const prefix = '[json.exception.parse_error.101] parse error at ';
  if (text.trim() === '') {
    return `${prefix}line 1, column 1: attempting to parse an empty input; check that your input string or stream contains the expected JSON`;
  }
  const f = scanJson(text);
  if (f === undefined) return undefined;
  const where = lineCol(text, Math.min(f.pos, text.length - 1) + (f.eof ? 1 : 0));
  if (f.eof) return `${prefix}${where}: syntax error while parsing ${f.context === 'end' ? 'value' : f.context} - unexpected end of input`;
  const structural = Math.max(...['{', '[', ',', ':'].map((c) => text.lastIndexOf(c, f.pos - 1)));
  const lastRead = text.slice(Math.max(0, structural), f.pos + 1).replace(/^\s+/, '');
  switch (f.context) {
    case 'object key':
      return `${prefix}${where}: syntax error while parsing object key - invalid literal; last read: '${lastRead}'; expected string literal`;
    case 'object separator':
      return `${prefix}${where}: syntax error while parsing object separator - unexpected '${text.charAt(f.pos)}'; expected ':'`;
    case 'object':
      return `${prefix}${where}: syntax error while parsing object - unexpected '${text.charAt(f.pos)}'; expected '}'`;
    case 'array':
      return `${prefix}${where}: syntax error while parsing array - unexpected '${text.charAt(f.pos)}'; expected ']'`;
    case 'end':
      return `${prefix}${where}: syntax error while parsing value - unexpected '${text.charAt(f.pos)}'; expected end of input`;
    default:
      return `${prefix}${where}: syntax error while parsing value - invalid literal; last read: '${lastRead}'`;
  }
}
