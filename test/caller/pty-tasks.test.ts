/**
 * Interactive Claude Code as the caller, over stdio as the plugin runs it: a job comes back as a background task
 * at once, TaskStop cancels it, two jobs in one turn run together (test/caller/pty-tasks-suite.ts). The same set
 * over streamable HTTP runs in the real suite (test/real/pty-tasks-http.real.test.ts): it holds a worker for 75 s.
 */
import { tasksSuite } from './pty-tasks-suite.js';

tasksSuite('stdio');
