/**
 * Malformed and hostile models.yaml files, met through the MCP tools: each is
 * a bad_config error naming the file, the line and the key (word for word),
 * the file is never rewritten, no job starts, and once the user fixes the file
 * the same server works without a restart. test/config/malformed.test.ts checks
 * the loader's wording case by case; this is what the calling Claude sees.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import { endpointYaml, errorOf, ok, startInProcess, type InProcess } from '../reliability/in-process.js';

interface Case {
  readonly name: string;
  readonly yaml: (url: string) => string | Buffer;
  /** The error message; FILE stands for the config path. */
  readonly message: (url: string) => string;
}

const CASES: readonly Case[] = [
  { name: 'duplicate endpoint names', yaml: (u) => `endpoints:\n  gpu:\n    base_url: ${u}\n  gpu:\n    base_url: ${u}\n`, message: () => 'FILE:4: endpoints.gpu: duplicate key — each key may appear only once in a mapping' },
  { name: 'a key given twice', yaml: (u) => `endpoints:\n  gpu:\n    base_url: ${u}\n    base_url: http://other:1\n`, message: () => 'FILE:4: endpoints.gpu.base_url: duplicate key — each key may appear only once in a mapping' },
  { name: 'env value that is a number', yaml: (u) => `endpoints:\n  gpu:\n    base_url: ${u}\n    env:\n      CLAUDE_CODE_MAX_RETRIES: 3\n`, message: () => 'FILE:5: endpoints.gpu.env.CLAUDE_CODE_MAX_RETRIES: env values must be strings (quote numbers and booleans); got number 3' },
  { name: 'env value that is a boolean', yaml: (u) => `endpoints:\n  gpu:\n    base_url: ${u}\n    env:\n      DEBUG: true\n`, message: () => 'FILE:5: endpoints.gpu.env.DEBUG: env values must be strings (quote numbers and booleans); got boolean true' },
  { name: 'env as a list', yaml: (u) => `endpoints:\n  gpu:\n    base_url: ${u}\n    env: [a, b]\n`, message: () => 'FILE:4: endpoints.gpu.env: expected a mapping of names to strings, got a list' },
  { name: 'a file:// URL', yaml: () => 'endpoints:\n  gpu:\n    base_url: file:///etc/passwd\n', message: () => 'FILE:3: endpoints.gpu.base_url: "file:///etc/passwd" uses file; expected an http:// or https:// URL' },
  { name: 'a javascript: URL', yaml: () => 'endpoints:\n  gpu:\n    base_url: "javascript:alert(1)"\n', message: () => 'FILE:3: endpoints.gpu.base_url: "javascript:alert(1)" uses javascript; expected an http:// or https:// URL' },
  {
    name: 'a base_url with a path',
    yaml: (u) => `endpoints:\n  gpu:\n    base_url: ${u}/v1\n`,
    message: (u) => `FILE:3: endpoints.gpu.base_url: "${u}/v1" has a path (/v1); give the server root, e.g. ${u} — localagents adds /v1/messages itself`,
  },
  { name: 'a base_url with a query', yaml: (u) => `endpoints:\n  gpu:\n    base_url: ${u}/?key=1\n`, message: (u) => `FILE:3: endpoints.gpu.base_url: "${u}/?key=1" has a query or fragment; give the server root only` },
  { name: 'a host without a scheme', yaml: () => 'endpoints:\n  gpu:\n    base_url: gpu-box:8080\n', message: () => 'FILE:3: endpoints.gpu.base_url: "gpu-box:8080" has no http:// or https:// in front; did you mean http://gpu-box:8080?' },
  { name: 'a YAML tag smuggling code', yaml: () => 'endpoints:\n  gpu:\n    base_url: !!js/function "function(){}"\n', message: () => 'FILE:3: endpoints.gpu.base_url: "function(){}" has no http:// or https:// in front; did you mean http://function(){}?' },
  {
    name: 'an alias bomb (billion laughs)',
    yaml: (u) => `a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nendpoints:\n  gpu:\n    base_url: ${u}\n`,
    message: () => 'FILE: YAML error: Excessive alias count indicates a resource exhaustion attack',
  },
  { name: 'a __proto__ key at the top', yaml: (u) => `__proto__:\n  polluted: true\nendpoints:\n  gpu:\n    base_url: ${u}\n`, message: () => 'FILE:1: __proto__: unknown key — expected one of endpoints, models, defaults, agents' },
  { name: 'endpoints as a list', yaml: (u) => `endpoints:\n  - base_url: ${u}\n`, message: () => 'FILE:1: endpoints: expected a mapping of names to entries, got a list' },
  { name: 'an endpoint with no body', yaml: () => 'endpoints:\n  gpu:\n', message: () => 'FILE:2: endpoints.gpu: expected a mapping with base_url, got an empty value' },
  { name: 'max_jobs below 1', yaml: (u) => `endpoints:\n  gpu:\n    base_url: ${u}\n    max_jobs: -1\n`, message: () => 'FILE:4: endpoints.gpu.max_jobs: expected an integer from 1 to 256, got -1' },
  { name: 'max_jobs as a string', yaml: (u) => `endpoints:\n  gpu:\n    base_url: ${u}\n    max_jobs: "4"\n`, message: () => 'FILE:4: endpoints.gpu.max_jobs: expected an integer, got string "4"' },
  { name: 'an unknown backend', yaml: (u) => `endpoints:\n  gpu:\n    base_url: ${u}\n    backend: tgi\n`, message: () => 'FILE:4: endpoints.gpu.backend: expected one of "llama.cpp", "vllm", "ollama", "other", got string "tgi"' },
  { name: 'timeout_s as words', yaml: (u) => `endpoints:\n  gpu:\n    base_url: ${u}\ndefaults:\n  timeout_s: soon\n`, message: () => 'FILE:5: defaults.timeout_s: expected a number, got string "soon"' },
  { name: 'allowed_tools as one string', yaml: (u) => `endpoints:\n  gpu:\n    base_url: ${u}\ndefaults:\n  allowed_tools: Read\n`, message: () => 'FILE:5: defaults.allowed_tools: expected a list of strings, got string "Read"' },
  {
    name: 'allow_bypass_permissions as "yes"',
    yaml: (u) => `endpoints:\n  gpu:\n    base_url: ${u}\ndefaults:\n  allow_bypass_permissions: "yes"\n`,
    message: () => 'FILE:5: defaults.allow_bypass_permissions: expected true or false, got string "yes"',
  },
  { name: 'a model on an undefined endpoint', yaml: (u) => `endpoints:\n  gpu:\n    base_url: ${u}\nmodels:\n  coder:\n    endpoint: gpu2\n`, message: () => 'FILE:6: models.coder.endpoint: endpoint gpu2 is not defined under endpoints — did you mean gpu?' },
  { name: 'a model context below 1024', yaml: (u) => `endpoints:\n  gpu:\n    base_url: ${u}\nmodels:\n  coder:\n    context: 10\n`, message: () => 'FILE:6: models.coder.context: expected an integer from 1024 to 16777216, got 10' },
  {
    name: 'binary garbage',
    yaml: () => Buffer.from([0, 1, 2, 3, 0xff, 0x00, 0x1b, 0x5b]),
    message: () => 'FILE:1: the file is not valid UTF-8 (a byte sequence on this line is not text); save it as UTF-8',
  },
  {
    name: 'bytes that are not UTF-8 inside a URL',
    yaml: () => Buffer.concat([Buffer.from('endpoints:\n  gpu:\n    base_url: http://gp'), Buffer.from([0xe9]), Buffer.from('u:8080\n')]),
    message: () => 'FILE:3: the file is not valid UTF-8 (a byte sequence on this line is not text); save it as UTF-8',
  },
  { name: 'an endpoint named __proto__', yaml: (u) => `endpoints:\n  __proto__:\n    base_url: ${u}\n`, message: () => 'FILE:2: endpoints.__proto__: "__proto__" cannot be used as a name; pick another' },
  { name: 'YAML syntax error', yaml: (u) => `endpoints:\n  gpu:\n    base_url: "${u}\n    backend: vllm\n`, message: () => 'FILE:4: YAML syntax error: Missing closing "quote' },
];

describe('broken models.yaml through the MCP tools', () => {
  let sim: Simulator;
  let h: InProcess;

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, script: [{ text: 'Fixed and running.' }] });
    h = await startInProcess({ yaml: endpointYaml(sim.url) });
  });
  afterAll(async () => {
    await h?.close();
    await sim?.close();
  });

  for (const c of CASES) {
    it(`${c.name}: bad_config naming file, line and key; the file is left as written; no job starts`, async () => {
      const written = c.yaml(sim.url);
      writeFileSync(h.dirs.config, written);
      const expected = c.message(sim.url).replace('FILE', h.dirs.config);
      expect(errorOf(await h.call('list_models'))).toMatchObject({ code: 'bad_config', message: expected });
      expect(errorOf(await h.call('run_agent', { task: 'x' }))).toMatchObject({ code: 'bad_config', message: expected });
      expect(readFileSync(h.dirs.config)).toEqual(Buffer.from(written));
    });
  }

  it('a models.yaml that is a directory: bad_config saying so', async () => {
    rmSync(h.dirs.config);
    mkdirSync(h.dirs.config);
    expect(errorOf(await h.call('list_models'))).toMatchObject({ code: 'bad_config', message: `config file ${h.dirs.config} (from --config) is not a file` });
    rmSync(h.dirs.config, { recursive: true });
  });

  it('once the file is fixed, the same server lists the model and runs a job; no job was recorded meanwhile', async () => {
    writeFileSync(h.dirs.config, endpointYaml(sim.url));
    const listing = ok(await h.call('list_models'));
    expect((listing.endpoints as Array<{ state: string }>)[0]?.state).toBe('up');
    expect(ok(await h.call('list_jobs'))).toMatchObject({ jobs: [] });
    expect(ok(await h.call('run_agent', { task: 'Say it.', wait_s: 60 }))).toMatchObject({ status: 'succeeded', result: 'Fixed and running.' });
  });
});
