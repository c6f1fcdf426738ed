import { describe, expect, it } from 'vitest';
import { buildSessionEnv, compactThreshold, compactionWarning, maxOutputTokensFor } from '../../src/jobs/claude/session-env.js';

describe('maxOutputTokensFor', () => {
  it.each([
    // window, expected max output, expected compact threshold (window − min(out, 20000) − 13000)
    [32_768, 8192, 11_576], // the measured q5g-32k-8k configuration
    [65_536, 8192, 44_344],
    [100_000, 12_500, 74_500],
    [131_072, 32_000, 98_072],
    [262_144, 32_000, 229_144],
    [24_576, 5432, 6144],
  ])('window %i → max output %i, threshold %i', (window, out, threshold) => {
    expect(maxOutputTokensFor(window)).toBe(out);
    expect(compactThreshold(window, maxOutputTokensFor(window))).toBe(threshold);
  });

  it('never leaves a negative threshold for windows that can host a session', () => {
    for (let window = 24_000; window <= 1_000_000; window += 997) {
      expect(compactThreshold(window, maxOutputTokensFor(window))).toBeGreaterThanOrEqual(window / 4 - 1);
    }
  });
});

describe('buildSessionEnv', () => {
  const parentEnv = {
    PATH: '/usr/bin',
    HOME: '/home/dev',
    LC_ALL: 'C.UTF-8',
    GIT_AUTHOR_NAME: 'Dev',
    ANTHROPIC_API_KEY: 'sk-ant-real-key',
    AWS_SECRET_ACCESS_KEY: 'secret',
    CLAUDE_CODE_USE_BEDROCK: '1',
  };

  it('points every model alias at the served id and the shim, and never passes the caller\'s credentials', () => {
    const env = buildSessionEnv({ baseUrl: 'http://127.0.0.1:4000/job/tok', servedModel: 'qwen3.8-27b', context: 32_768, endpointEnv: undefined, parentEnv });
    expect(env).toMatchObject({
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:4000/job/tok',
      ANTHROPIC_MODEL: 'qwen3.8-27b',
      ANTHROPIC_DEFAULT_OPUS_MODEL: 'qwen3.8-27b',
      ANTHROPIC_DEFAULT_SONNET_MODEL: 'qwen3.8-27b',
      ANTHROPIC_DEFAULT_HAIKU_MODEL: 'qwen3.8-27b',
      ANTHROPIC_SMALL_FAST_MODEL: 'qwen3.8-27b',
      CLAUDE_CODE_MAX_CONTEXT_TOKENS: '32768',
      CLAUDE_CODE_MAX_OUTPUT_TOKENS: '8192',
      CLAUDE_CODE_ATTRIBUTION_HEADER: '0',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      PATH: '/usr/bin',
      HOME: '/home/dev',
      LC_ALL: 'C.UTF-8',
      GIT_AUTHOR_NAME: 'Dev',
    });
    expect(env.ANTHROPIC_API_KEY).toBe('localagents');
    expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    expect(env.CLAUDE_CODE_USE_BEDROCK).toBeUndefined();
  });

  it('never sets the context window without the output budget', () => {
    const env = buildSessionEnv({ baseUrl: 'u', servedModel: 'm', context: undefined, endpointEnv: undefined, parentEnv: {} });
    expect(env.CLAUDE_CODE_MAX_CONTEXT_TOKENS).toBeUndefined();
    expect(env.CLAUDE_CODE_MAX_OUTPUT_TOKENS).toBeUndefined();
  });

  it("applies the endpoint's env last", () => {
    const env = buildSessionEnv({ baseUrl: 'u', servedModel: 'm', context: 65_536, endpointEnv: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '4096', ENABLE_TOOL_SEARCH: 'false' }, parentEnv: {} });
    expect(env.CLAUDE_CODE_MAX_OUTPUT_TOKENS).toBe('4096');
    expect(env.ENABLE_TOOL_SEARCH).toBe('false');
  });
});

describe('compactionWarning', () => {
  it('warns when the endpoint env makes Claude Code thrash, and stays quiet for localagents\' own choice', () => {
    const ours = buildSessionEnv({ baseUrl: 'u', servedModel: 'm', context: 32_768, endpointEnv: undefined, parentEnv: {} });
    expect(compactionWarning(ours, undefined)).toBeUndefined();
    // A window so small that localagents' own pick (1024) cannot help: not the user's doing, no advice to remove it.
    const tiny = buildSessionEnv({ baseUrl: 'u', servedModel: 'm', context: 16_384, endpointEnv: undefined, parentEnv: {} });
    expect(tiny.CLAUDE_CODE_MAX_OUTPUT_TOKENS).toBe('1024');
    expect(compactionWarning(tiny, undefined)).toBeUndefined();
    const theirs = buildSessionEnv({ baseUrl: 'u', servedModel: 'm', context: 32_768, endpointEnv: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '32000' }, parentEnv: {} });
    expect(compactionWarning(theirs, { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '32000' })).toBe(
      'CLAUDE_CODE_MAX_OUTPUT_TOKENS=32000 with a 32768-token window puts Claude Code\'s auto-compact threshold at -232 tokens: ' +
        'expect "Autocompact is thrashing". Remove it from the endpoint\'s env (localagents picks 8192) or lower it.',
    );
    expect(compactionWarning(buildSessionEnv({ baseUrl: 'u', servedModel: 'm', context: undefined, endpointEnv: undefined, parentEnv: {} }), undefined)).toBeUndefined();
  });
});
