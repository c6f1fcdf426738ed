// The one written order of src/'s layers, top to bottom. A module may import from its own unit (folder or
// top-level file) and from any unit in a lower layer; never from a sibling in its own layer, never upwards.
//
// The brief's bottom layer {coord, log, errors} is split in two: `errors` is a leaf every layer uses, coord's
// file lock among them. `net` (the loopback front door, tokens) and `secrets` (redaction) are leaves too —
// they import nothing from src/ and are used from the edges down to `log`, which redacts through `secrets`;
// `printable` (server text made safe for a terminal or a YAML scalar) is another such leaf, and so is `json-shape`
// (state files checked without loading zod), and so is `amounts` (numbers and durations in words, and the `7d` span reader). `path-errors` words
// filesystem errors on state and config paths for every layer above it, and needs only `errors`.
export const LAYERS: readonly (readonly string[])[] = [
  ['main'],
  ['cli'],
  ['mcp', 'dashboard', 'selftest'],
  ['app'],
  ['usage'],
  ['jobs'],
  ['shim', 'registry'],
  ['agents'],
  ['backends'],
  ['config'],
  ['coord', 'log'],
  ['path-errors'],
  ['errors', 'net', 'secrets', 'printable', 'json-shape', 'amounts'],
];

// Inside a folder named here, its sub-folders are layered the same way; `.` is the folder's own top-level files.
// Anything outside the folder sees it as one unit.
export const SUB_LAYERS: Readonly<Record<string, readonly (readonly string[])[]>> = {
  jobs: [
    ['view'], // a job's facts and the person's wording of them
    ['queue'], // the manager: enqueue, queue, launch; the jobs of this and other processes
    ['session'], // one job's run: request, Claude Code session, failover, final status
    ['verify'], // the check that must pass before a job may end
    ['sandbox'], // the sandbox around the session's Bash
    ['tracking'], // what a running session does: observer, tallies, live requests
    ['claude', 'git', 'placement'], // Claude Code binary and settings; worktrees and merges; where a job runs
    ['record'], // job.json, its schema, the store and ids
  ],
  shim: [
    ['.'], // the server and one request's way through it
    ['progress', 'body', 'request-log'], // progress meters; request bodies and media; requests.jsonl
    ['upstream', 'rewrite'], // the call to the model server and its sockets; one pure function per rule
    ['translate'], // backend errors in Anthropic's words
    ['json'], // reading JSON bodies
  ],
};
