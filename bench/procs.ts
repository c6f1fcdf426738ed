/** Entry point: part 7, several processes sharing slots (npm run bench:procs; needs npm run build). */
import { runBench } from './lib/main.js';

await runBench(['procs']);
