/** Entry point: part 8, command-line start (npm run bench:cli; needs npm run build). */
import { runBench } from './lib/main.js';

await runBench(['cli']);
