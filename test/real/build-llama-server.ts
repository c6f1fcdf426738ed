/**
 * Builds llama.cpp's `llama-server` once per machine for the real-server suite (`npm run test:real`).
 *
 * The source is the git bundle shipped inside the npm package node-llama-cpp (pinned below). We fetch it with
 * `npm pack` into ~/.cache/localagents/ (never a dependency of the project), clone the bundle, and build only the
 * `llama-server` target on the CPU. The binary is cached under a directory named by the source commit, so a
 * second run costs nothing. Prints the path of the binary as its last line on stdout.
 *
 * Run directly: `node --import tsx test/real/build-llama-server.ts`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const NODE_LLAMA_CPP = 'node-llama-cpp@3.22.1';

export const cacheRoot = (): string =>
  process.env.LOCALAGENTS_REAL_CACHE ?? join(homedir(), '.cache', 'localagents', 'llama-server');

const log = (line: string): void => {
  process.stderr.write(`[llama-server build] ${line}\n`);
};

const run = (cmd: string, args: string[], cwd: string): string =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

/** Streams a long command's output as progress lines; rejects with its exit code. */
const runWithProgress = (cmd: string, args: string[], cwd: string): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const forward = (chunk: Buffer): void => {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') log(line.trim());
    };
    child.stdout.on('data', forward);
    child.stderr.on('data', forward);
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${cmd} ${args.join(' ')} exited with ${String(code)}`));
    });
  });

/** The llama.cpp source tree from the pinned package, cloned once; returns its directory. */
export const ensureSource = (): string => {
  const root = cacheRoot();
  const source = join(root, 'source');
  if (existsSync(join(source, 'tools', 'server'))) return source;
  const pack = join(root, 'pack');
  mkdirSync(pack, { recursive: true });
  let tarball = readdirSync(pack).find((f) => f.endsWith('.tgz'));
  if (tarball === undefined) {
    log(`fetching ${NODE_LLAMA_CPP} with npm pack`);
    run('npm', ['pack', NODE_LLAMA_CPP, '--silent'], pack);
    tarball = readdirSync(pack).find((f) => f.endsWith('.tgz'));
    if (tarball === undefined) throw new Error(`npm pack ${NODE_LLAMA_CPP} left no tarball in ${pack}`);
  }
  log('extracting llama/gitRelease.bundle');
  run('tar', ['-xzf', tarball, 'package/llama/gitRelease.bundle'], pack);
  const partial = `${source}.partial`;
  rmSync(partial, { recursive: true, force: true });
  log('cloning the bundle');
  run('git', ['clone', '--quiet', join(pack, 'package', 'llama', 'gitRelease.bundle'), partial], root);
  renameSync(partial, source);
  return source;
};

export const sourceCommit = (source: string): string => run('git', ['rev-parse', 'HEAD'], source).trim();

/** Path of the cached binary for this source commit (may not exist yet). */
export const serverBinaryPath = (commit: string): string => join(cacheRoot(), 'build', commit, 'bin', 'llama-server');

/** Ninja when the machine has it (faster incremental builds), else the Makefiles every CMake install supports. */
const generator = (): string => {
  try {
    execFileSync('ninja', ['--version'], { stdio: 'ignore' });
    return 'Ninja';
  } catch {
    return 'Unix Makefiles';
  }
};

export const buildLlamaServer = async (): Promise<string> => {
  const source = ensureSource();
  const commit = sourceCommit(source);
  const binary = serverBinaryPath(commit);
  if (existsSync(binary)) {
    log(`cached: ${binary}`);
    return binary;
  }
  const buildDir = join(cacheRoot(), 'build', commit);
  const started = Date.now();
  log(`building llama-server from ${commit.slice(0, 12)} into ${buildDir} (about 8 minutes on 2 idle cores)`);
  await runWithProgress(
    'cmake',
    [
      '-S', source, '-B', buildDir, '-G', generator(),
      '-DCMAKE_BUILD_TYPE=Release',
      '-DGGML_NATIVE=OFF',
      '-DLLAMA_OPENSSL=OFF',
      '-DLLAMA_BUILD_UI=OFF',
      '-DLLAMA_USE_PREBUILT_UI=OFF',
      '-DLLAMA_BUILD_TESTS=OFF',
      '-DLLAMA_BUILD_EXAMPLES=OFF',
      '-DBUILD_SHARED_LIBS=OFF',
    ],
    source,
  );
  const jobs = process.env.LOCALAGENTS_BUILD_JOBS ?? '2';
  await runWithProgress('cmake', ['--build', buildDir, '--target', 'llama-server', '-j', jobs], source);
  if (!existsSync(binary)) throw new Error(`the build finished but ${binary} is missing`);
  log(`built in ${Math.round((Date.now() - started) / 1000)} s: ${binary}`);
  return binary;
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  buildLlamaServer().then(
    (binary) => process.stdout.write(`${binary}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
