/**
 * A small JSON scanner: where a text stops being JSON and what was being read there (an object key, a separator,
 * a value…). The Ollama flavour words Go's encoding/json errors from it (go-json-error.ts).
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
