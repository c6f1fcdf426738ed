/**
 * What a tool call (register_endpoint) may write, given what the user wrote.
 * A tool call is half-trusted: it may add a server, never widen where the
 * user's secrets or jobs go. So it may not:
 * - replace an endpoint defined in models.yaml: the sidecar entry would replace
 *   it whole, retargeting every job the user sends there (and dropping its key);
 * - name an api_key_env that models.yaml does not already send to the same host,
 *   unless the user listed it in defaults.allowed_key_env.
 */
import { BadArgumentError } from '../errors.js';
import type { Config, EndpointConfig } from './schema.js';

function hostOf(baseUrl: string): string | undefined {
  return URL.canParse(baseUrl) ? new URL(baseUrl).hostname.toLowerCase() : undefined;
}

/** Each api_key_env models.yaml uses, with the hosts it sends it to. */
function keyEnvHosts(handWritten: Readonly<Record<string, EndpointConfig>>): Map<string, Set<string>> {
  const hosts = new Map<string, Set<string>>();
  for (const endpoint of Object.values(handWritten)) {
    const host = hostOf(endpoint.base_url);
    if (endpoint.api_key_env === undefined || host === undefined) continue;
    hosts.set(endpoint.api_key_env, (hosts.get(endpoint.api_key_env) ?? new Set()).add(host));
  }
  return hosts;
}

/** Throws BadArgumentError when a tool call's endpoint would widen what models.yaml configured. */
export function checkToolEndpoint(config: Config, name: string, entry: Pick<EndpointConfig, 'base_url' | 'api_key_env'>): void {
  const handWritten = config.handWrittenEndpoints ?? {};
  const file = config.path ?? 'models.yaml';
  if (Object.hasOwn(handWritten, name)) {
    throw new BadArgumentError('name', `endpoint ${name} is defined in ${file}; a tool call cannot replace it`, {
      hint: `Register the server under another name, or ask the user to change ${name} in ${file} (an entry in models.local.yaml would replace it whole, moving its jobs and key).`,
      details: { defined_in: file },
    });
  }
  const variable = entry.api_key_env;
  if (variable === undefined || config.defaults.allowed_key_env.includes(variable)) return;
  const host = hostOf(entry.base_url) ?? entry.base_url;
  const grants = keyEnvHosts(handWritten);
  if (grants.get(variable)?.has(host)) return;
  const usable = [...grants].filter(([, hosts]) => hosts.has(host)).map(([v]) => v);
  const allowed = [...new Set([...usable, ...config.defaults.allowed_key_env])].sort();
  const where = grants.has(variable) ? `${file} sends ${variable} only to ${[...(grants.get(variable) ?? [])].join(', ')}, not to ${host}` : `${file} does not use ${variable}`;
  throw new BadArgumentError('api_key_env', `api_key_env ${variable} is refused: ${where}`, {
    hint:
      `A tool call may only name a key variable that ${file} already sends to the same host, or one the user lists in defaults.allowed_key_env. ` +
      'Ask the user to add the endpoint (with its key) to models.yaml themselves.',
    details: { allowed },
  });
}
