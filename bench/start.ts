/** Entry point: part 3, job start (npm run bench:start; needs npm run build). */
import { runBench } from './lib/main.js';

await runBench(['start']);
