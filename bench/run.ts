/** Entry point: all nine parts (npm run bench). */
import { runBench } from './lib/main.js';

await runBench(['shim', 'prefix', 'start', 'probing', 'sched', 'growth', 'procs', 'cli', 'caller']);
