#!/usr/bin/env node
// Entry point of `svc`: hands argv to the compiled CLI, nothing else.
import { run } from '../dist/cli/entry.js';

run(process.argv.slice(2));
