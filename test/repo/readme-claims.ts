/**
 * Reads the checkable claims out of a Markdown file: command lines it shows,
 * option names in a command's own section, rows of its reference tables,
 * `models.yaml` keys and YAML examples. Each claim keeps its line number so a
 * failure can say where to fix it.
 */

export interface Located<T> {
  readonly line: number;
  readonly value: T;
}

interface MarkdownLine {
  readonly line: number;
  readonly text: string;
  /** The fence's language when the line is inside a code block. */
  readonly fence: string | undefined;
  /** The line of the fence that opened the code block the line is in. */
  readonly fenceLine: number;
  /** The nearest heading above. */
  readonly heading: string;
}

function markdownLines(markdown: string): MarkdownLine[] {
  const out: MarkdownLine[] = [];
  let fence: string | undefined;
  let fenceLine = 0;
  let heading = '';
  markdown.split('\n').forEach((text, i) => {
    const opening = /^```(\S*)/.exec(text);
    if (opening !== null) {
      fence = fence === undefined ? (opening[1] ?? '') : undefined;
      fenceLine = i + 1;
      return;
    }
    if (fence === undefined && /^#{1,6} /.test(text)) heading = text;
    out.push({ line: i + 1, text, fence, fenceLine, heading });
  });
  return out;
}

function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
}

/** Where a shell line stops being one localagents command. */
const COMMAND_END = /\s(?:#|\||&&|;|<|>|\()\s?|\s--\s|$/;

/**
 * Every `localagents …` command line in code blocks and inline code: the words
 * after `localagents` up to a comment, pipe, redirection or the next command,
 * a quoted argument (a task's text) as one word. Claude Code's own slash
 * commands (`/plugin install localagents …`) name the plugin, not this CLI.
 */
export function commandLines(markdown: string): Array<Located<string[]>> {
  const out: Array<Located<string[]>> = [];
  for (const l of markdownLines(markdown)) {
    if (l.fence !== undefined && !['', 'sh', 'console', 'text', 'bash'].includes(l.fence)) continue;
    const pieces = (l.fence !== undefined ? [l.text.replace(/^\$ /, '')] : codeSpans(l.text)).filter((p) => !p.startsWith('/'));
    for (const quoted of pieces) {
      const piece = quoted.replace(/"[^"]*"|'[^']*'/g, '"…"');
      for (const m of piece.matchAll(/(?:^|[\s(])localagents(?=\s|$)/g)) {
        const rest = piece.slice(m.index + m[0].length);
        const words = rest.slice(0, rest.search(COMMAND_END)).trim();
        out.push({ line: l.line, value: words === '' ? [] : words.split(/\s+/) });
      }
    }
  }
  return out;
}

/** Option names (`--json`, `-n`) written as inline code in a section whose heading names commands. */
export function sectionOptions(markdown: string, commands: ReadonlySet<string>): Array<Located<{ readonly option: string; readonly commands: string[] }>> {
  const out: Array<Located<{ readonly option: string; readonly commands: string[] }>> = [];
  for (const l of markdownLines(markdown)) {
    if (l.fence !== undefined) continue;
    const named = codeSpans(l.heading).flatMap((span) => span.replace(/^localagents /, '').split(/\s+/).slice(0, 1)).filter((w) => commands.has(w));
    if (named.length === 0) continue;
    for (const span of codeSpans(l.text)) {
      const option = /^(--?[a-z][\w-]*)/.exec(span)?.[1];
      if (option !== undefined) out.push({ line: l.line, value: { option, commands: named } });
    }
  }
  return out;
}

/** The rows of every table whose first header cell is `header`, as cells. */
export function tableRows(markdown: string, header: string): Array<Located<string[]>> {
  const out: Array<Located<string[]>> = [];
  let inTable = false;
  for (const l of markdownLines(markdown)) {
    if (l.fence !== undefined || !l.text.startsWith('|')) {
      inTable = false;
      continue;
    }
    const cells = l.text.slice(1, l.text.lastIndexOf('|')).split(/(?<!\\)\|/).map((c) => c.trim());
    if (cells[0] === header) inTable = true;
    else if (inTable && !/^-+$/.test(cells[0] ?? '')) out.push({ line: l.line, value: cells });
  }
  return out;
}

/** The names a table cell lists in code: `a.b.c`, `d` → a.b.c and a.b.d (a bare name shares the first one's prefix). */
export function namesInCell(cell: string): string[] {
  const spans = codeSpans(cell);
  const first = spans[0];
  if (first === undefined) return [];
  const prefix = first.includes('.') ? first.slice(0, first.lastIndexOf('.') + 1) : '';
  return spans.map((s) => (s.includes('.') ? s : prefix + s));
}

/** `models.yaml` key paths written as inline code anywhere outside code blocks. */
export function configKeyMentions(markdown: string): Array<Located<string>> {
  return markdownLines(markdown)
    .filter((l) => l.fence === undefined)
    .flatMap((l) => codeSpans(l.text).filter((s) => /^(?:endpoints|models|defaults)\.[\w<>.]+$/.test(s) && !/\.ya?ml$/.test(s)).map((value) => ({ line: l.line, value })));
}

/** The YAML code blocks, each with the line of its opening fence. */
export function yamlBlocks(markdown: string): Array<Located<string>> {
  const blocks = new Map<number, string[]>();
  for (const l of markdownLines(markdown)) {
    if (l.fence === 'yaml') blocks.set(l.fenceLine, [...(blocks.get(l.fenceLine) ?? []), l.text]);
  }
  return [...blocks].map(([line, text]) => ({ line, value: text.join('\n') }));
}

/** Tool calls written as `tool(argument=…)` or `tool(argument: …)`. */
export function toolCallMentions(markdown: string): Array<Located<{ readonly tool: string; readonly argument: string }>> {
  return markdownLines(markdown).flatMap((l) =>
    [...l.text.matchAll(/`?\b([a-z]+(?:_[a-z]+)+)\((\w+)\s*[=:]/g)].map((m) => ({ line: l.line, value: { tool: m[1] ?? '', argument: m[2] ?? '' } })),
  );
}
