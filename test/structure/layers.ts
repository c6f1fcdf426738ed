// The one written order of src/'s layers, top to bottom. A module may import from its own unit (folder or
// top-level file) and from any unit in a lower layer; never from a sibling in its own layer, never upwards.
//
// The brief's bottom layer {coord, log, errors} is split in two: `errors` is a leaf every layer uses, coord's
// file lock among them. `net` (the loopback front door, tokens) and `secrets` (redaction) are leaves too —
// they import nothing from src/ and are used from the edges down to `log`, which redacts through `secrets`;
// `printable` (server text made safe for a terminal or a YAML scalar) is another such leaf, and so is `json-shape`
// (state files checked without loading zod). `path-errors` words
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
  ['errors', 'net', 'secrets', 'printable', 'json-shape'],
];
