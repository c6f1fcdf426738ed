/**
 * Setup file of the real suite: the tests' own requests (global fetch) take a fresh connection each.
 * llama-server (cpp-httplib) closes a kept-alive socket when it likes, and a request can meet one it is closing:
 * "other side closed" before a byte came back (sim-vs-real failed so once, in CI). The shim sends those again
 * (src/shim/upstream/stale-socket.ts, with its own tests); these tests look at what the server answers.
 */
import { Agent, setGlobalDispatcher } from 'undici';

setGlobalDispatcher(new Agent({ pipelining: 0 }));
