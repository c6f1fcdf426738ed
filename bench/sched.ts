/** Entry point: part 5, 16 jobs on 4 slots (npm run bench:sched; needs npm run build). */
import { runBench } from './lib/main.js';

await runBench(['sched']);
