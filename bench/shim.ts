/** Entry point: part 1, the shim's overhead (npm run bench:shim). */
import { runBench } from './lib/main.js';

await runBench(['shim']);
