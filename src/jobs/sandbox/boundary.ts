/**
 * What the sandbox hides from a delegated session, each entry with its reason.
 * One list for the settings block, doctor, SECURITY.md and docs/sandbox.md.
 * Reads stay open elsewhere (a session must read compilers, headers, the
 * repository's dependencies); these are the places that hold someone's keys.
 */

export interface HiddenPath {
  /** Relative to the home directory. */
  readonly path: string;
  readonly reason: string;
}

/** Under the home directory: unreadable for Bash and for the file tools. */
export const CREDENTIAL_PATHS: readonly HiddenPath[] = [
  { path: '.ssh', reason: 'SSH private keys and known hosts: a key read here logs in as you anywhere it is authorised' },
  { path: '.aws', reason: 'AWS access keys and SSO tokens' },
  { path: '.gnupg', reason: 'GPG private keys (signing commits as you, decrypting your mail)' },
  { path: '.config/gh', reason: 'the GitHub CLI token' },
  { path: '.config/gcloud', reason: 'Google Cloud credentials' },
  { path: '.azure', reason: 'Azure CLI tokens' },
  { path: '.netrc', reason: 'passwords curl, git and ftp send to hosts' },
  { path: '.git-credentials', reason: "git's stored HTTPS passwords and tokens" },
  { path: '.npmrc', reason: 'npm registry tokens' },
  { path: '.pypirc', reason: 'PyPI upload tokens' },
  { path: '.docker/config.json', reason: 'registry logins (docker login)' },
  { path: '.kube', reason: 'Kubernetes cluster certificates and tokens' },
  { path: '.claude/.credentials.json', reason: "Claude Code's own login (OAuth tokens)" },
  { path: '.claude.json', reason: "Claude Code's account state, with a stored API key when there is one" },
  { path: '.config/localagents', reason: "localagents' models.yaml and models.local.yaml: endpoint keys, and what the user allows tool calls" },
];

export interface HiddenVariable {
  readonly name: string;
  readonly reason: string;
}

/**
 * Unset for sandboxed commands (Claude Code's own process keeps them). The
 * session's environment is already an allowlist (src/jobs/claude/session-env.ts);
 * this is the second wall, for a key that reaches it through an endpoint's
 * or a menu entry's `env`.
 */
export const SECRET_VARIABLES: readonly HiddenVariable[] = [
  { name: 'ANTHROPIC_BASE_URL', reason: "the job's shim URL: its path is the token that lets a request through" },
  { name: 'ANTHROPIC_AUTH_TOKEN', reason: 'an Anthropic bearer token' },
  { name: 'GITHUB_TOKEN', reason: 'GitHub API token' },
  { name: 'GH_TOKEN', reason: 'GitHub CLI token' },
  { name: 'GITLAB_TOKEN', reason: 'GitLab API token' },
  { name: 'AWS_ACCESS_KEY_ID', reason: 'AWS key id' },
  { name: 'AWS_SECRET_ACCESS_KEY', reason: 'AWS secret key' },
  { name: 'AWS_SESSION_TOKEN', reason: 'AWS session token' },
  { name: 'GOOGLE_APPLICATION_CREDENTIALS', reason: 'path of a Google service-account key' },
  { name: 'AZURE_CLIENT_SECRET', reason: 'Azure service-principal secret' },
  { name: 'NPM_TOKEN', reason: 'npm registry token' },
  { name: 'NODE_AUTH_TOKEN', reason: 'npm registry token (setup-node)' },
  { name: 'HF_TOKEN', reason: 'Hugging Face token' },
  { name: 'HUGGING_FACE_HUB_TOKEN', reason: 'Hugging Face token' },
  { name: 'OPENAI_API_KEY', reason: 'OpenAI API key' },
  { name: 'SSH_AUTH_SOCK', reason: 'the SSH agent: signs as you without the key file' },
];

/** Why a variable that no list names is hidden anyway: its name says it is a secret. */
export const SECRET_NAME = /(^|_)(TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)($|_)/i;
