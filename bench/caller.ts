/** Entry point: part 10 alone, what a delegation costs the caller (npm run bench:caller). */
import { runBench } from './lib/main.js';

await runBench(['caller']);
