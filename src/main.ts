#!/usr/bin/env node
/**
 * `node dist/main.js`, as setups made from an earlier README name the program: the same command line as
 * the package's bin, dist/main.cjs (src/main.cts), which this only starts.
 */
import './main.cjs';
