/**
 * Records the Claude Code session the template matrix replays (test/fixtures/claude-code/session-thinking-image-compaction):
 * the Claude Code bundled with the Agent SDK, headless (`claude -p`), straight at the simulator (vLLM flavour, so the
 * thinking blocks it replays carry a signature), each request saved as the other captures are: req-NNN.json with
 * method, url, headers, body and what the scripted backend answered. The repository path becomes /home/dev/project.
 *
 * The session: thinking + Write, thinking + Bash (its reported usage then crosses the 32k/8k auto-compact threshold),
 * Claude Code's compaction request and the continuation that carries the summary, thinking + Read of a PNG, and the
 * answer after the picture. Every main-loop request has Claude Code's mid-conversation system message.
 *
 * Run by hand: `node --import tsx test/real/record-session.ts` (rewrites the folder).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { bundledClaudePath, claudeVersion } from '../../src/jobs/claude/claude-binary.js';
import { claudeEnv, runClaudeP } from '../e2e/claude-cli.js';
import { makeRepo } from '../helpers/git-repo.js';
import { startSimulator } from '../sim/index.js';
import type { ParsedRequest, Turn } from '../sim/types.js';
import { SESSION_DIR } from './recorded-session.js';

/** A 24×16 RGB PNG of two colour bands: small, valid, and something Claude Code's Read returns as an image block. */
function png(): Buffer {
  const width = 24;
  const height = 16;
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer): number => {
    let c = 0xffffffff;
    for (const b of buf) c = (crcTable[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer): Buffer => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'ascii');
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, tail]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.concat(
    Array.from({ length: height }, (_, y) => Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => (y < height / 2 ? [200, 40, 40] : [40, 40, 200])).flat())])),
  );
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

const SUMMARY_MARKER = 'This session is being continued from a previous conversation';

function turn(req: ParsedRequest): Turn {
  const text = JSON.stringify(req.messages);
  if (!text.includes(SUMMARY_MARKER)) {
    if (req.assistantTurns === 0) {
      return { thinking: 'The user wants notes.txt first; I will write it.', text: 'Writing notes.txt.', toolUse: { name: 'Write', input: { file_path: 'notes.txt', content: 'red over blue\n' } }, usage: { input_tokens: 3000 } };
    }
    // Reported as nearly full: the next request is Claude Code's compaction.
    return { thinking: 'Now list the directory to check the file is there.', toolUse: { name: 'Bash', input: { command: 'ls', description: 'List files' } }, usage: { input_tokens: 14000 } };
  }
  if (!text.includes('"type":"image"')) {
    return { thinking: 'After the summary: look at the screenshot next.', toolUse: { name: 'Read', input: { file_path: 'screenshot.png' } }, usage: { input_tokens: 3000 } };
  }
  return { thinking: 'The picture shows a red band over a blue band.', text: 'Done: wrote notes.txt, listed the files and looked at screenshot.png (red over blue).', usage: { input_tokens: 3200 } };
}

async function main(): Promise<void> {
  const claude = bundledClaudePath();
  if (claude === undefined) throw new Error('the Agent SDK has no bundled claude for this platform');
  const version = await claudeVersion(claude, process.env);
  const sim = await startSimulator({ flavor: 'vllm', modelId: 'qwen3.5-4b', script: turn });
  const repo = makeRepo('la-record-');
  writeFileSync(join(repo, 'screenshot.png'), png());
  const home = join(repo, '..', `${repo.split('/').pop() ?? 'rec'}-home`);
  mkdirSync(home, { recursive: true });
  try {
    const env = claudeEnv(sim.url, home, join(home, 'claude'), sim.modelId, { CLAUDE_CODE_MAX_CONTEXT_TOKENS: '32768', CLAUDE_CODE_MAX_OUTPUT_TOKENS: '8192' });
    const run = await runClaudeP('Write notes.txt saying "red over blue", list the files, then look at screenshot.png and tell me what it shows.', repo, env, 300_000);
    if (run.result?.is_error !== false) throw new Error(`the session failed: ${run.stdout.slice(-2000)}${run.stderr.slice(-2000)}`);
    rmSync(SESSION_DIR, { recursive: true, force: true });
    mkdirSync(SESSION_DIR, { recursive: true });
    const messages = sim.requests.filter((r) => r.path === '/v1/messages');
    messages.forEach((r, i) => {
      const body: unknown = JSON.parse(r.bodyText.split(repo).join('/home/dev/project'));
      const record = { method: r.method, url: r.url, headers: r.headers, body, fake_backend_answered: r.status };
      writeFileSync(join(SESSION_DIR, `req-${String(i + 1).padStart(3, '0')}.json`), `${JSON.stringify(record, null, 2)}\n`);
    });
    writeFileSync(
      join(SESSION_DIR, 'README.md'),
      `Recorded ${new Date().toISOString().slice(0, 10)} by test/real/record-session.ts: Claude Code ${version} (bundled with the Agent SDK), ` +
        `\`claude -p\` straight at the simulator (vLLM flavour), ${messages.length} requests. See that file for the session's script.\n`,
    );
    process.stdout.write(`${messages.length} requests in ${SESSION_DIR}\n`);
  } finally {
    await sim.close();
  }
}

await main();
