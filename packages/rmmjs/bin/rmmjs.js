#!/usr/bin/env node
// `npx rmmjs <command>`: the rmmjs command of @rmmjs/cli (info, demo, replay, plot, bench).
import '@rmmjs/cli/bin';
