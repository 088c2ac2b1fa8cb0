#!/usr/bin/env node
// Entry point of `svc`, CommonJS (bin/package.json): Node starts it quicker than an
// ES module. --version and help come from the pages the build wrote
// (dist/cli/quick.cjs, which loads nothing else); everything else goes to the bundled
// CLI (dist/cli/entry.cjs and its chunks in dist/chunks/, loaded per command: `npm run
// build`). Node 22.1+ keeps the compiled code of svc and its dependencies on disk (the
// compile cache), so every run after the first starts faster; on Node 20, which has
// none, bin/code-cache.cjs keeps the code cache of svc's own bundle. The CLI maps
// every error to one line itself; this only covers a build that cannot load.
'use strict';
const { join } = require('node:path');

const argv = process.argv.slice(2);
const cannotStart = (err) => {
  const why = String(err?.message ?? err).split('\n')[0];
  process.stderr.write(`error: svc no pudo arrancar (${why}); reinstalá svc\n`);
  process.exit(1);
};
let answer;
try {
  answer = require('../dist/cli/quick.cjs').quickAnswer(argv, join(__dirname, '..', 'dist', 'cli'));
} catch (err) {
  cannotStart(err);
}
if (answer !== undefined) {
  process.stdout.write(answer);
} else {
  const { enableCompileCache } = require('node:module');
  if (enableCompileCache) enableCompileCache();
  else {
    try {
      require('./code-cache.cjs').install(join(__dirname, '..', 'dist'));
    } catch {
      // Without its code cache svc only starts slower.
    }
  }
  let run;
  try {
    ({ run } = require('../dist/cli/entry.cjs'));
  } catch (err) {
    cannotStart(err);
  }
  run(argv);
}
