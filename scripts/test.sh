#!/bin/sh
# `npm test`: the build, then the vitest suite with lint and type-check beside it. Those two need only the sources;
# run before the suite, they held it back by the lint's ~40 s on two cores, where beside it they fill the moments
# its tests wait on a simulated server. Arguments go to vitest (`npm test -- test/cli`).
npm run -s build || exit 1
npm run -s lint & lint=$!
npm run -s typecheck & types=$!
vitest run "$@"; tested=$?
wait $lint; linted=$?
wait $types; typed=$?
[ $tested -eq 0 ] && [ $linted -eq 0 ] && [ $typed -eq 0 ]
