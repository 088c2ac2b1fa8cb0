#!/usr/bin/env node
// Entry point of `svc`: hands argv to the compiled CLI, nothing else. Node 22.1+
// keeps the compiled code of svc and its dependencies on disk (the compile cache),
// so every run after the first starts faster; Node 20 has no such cache.
import module from 'node:module';

module.enableCompileCache?.();
const { run } = await import('../dist/cli/entry.js');
run(process.argv.slice(2));
