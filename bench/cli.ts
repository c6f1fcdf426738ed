/** Entry point: part 9, command-line start (npm run bench:cli; needs npm run build). */
import { runBench } from './lib/main.js';

await runBench(['cli']);
