/**
 * Interactive Claude Code as the caller over streamable HTTP: the set npm test runs over stdio
 * (test/caller/pty-tasks.test.ts), here because it holds a worker for 75 s and the stdio set covers the plugin.
 */
import { tasksSuite } from '../caller/pty-tasks-suite.js';

tasksSuite('http');
