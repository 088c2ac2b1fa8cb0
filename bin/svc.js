#!/usr/bin/env node
// Entry point of `svc`. --version and help come from the pages the build wrote
// (dist/cli/quick.js, which loads nothing else); everything else goes to the bundled
// CLI (dist/cli/entry.js and its chunks in dist/chunks/, loaded per command: `npm run
// build`). Node 22.1+ keeps the compiled code of svc and its dependencies on disk
// (the compile cache), so every run after the first starts faster; Node 20 has no
// such cache. node:module comes through getBuiltinModule: an import would build its
// ES facade. The CLI maps every error to one line itself; this only covers a build
// that cannot load.
process.getBuiltinModule('node:module').enableCompileCache?.();
const argv = process.argv.slice(2);
let answer;
let run;
try {
  answer = (await import('../dist/cli/quick.js')).quickAnswer(argv);
  if (answer === undefined) ({ run } = await import('../dist/cli/entry.js'));
} catch (err) {
  const why = String(err?.message ?? err).split('\n')[0];
  process.stderr.write(`error: svc no pudo arrancar (${why}); reinstalá svc\n`);
  process.exit(1);
}
if (answer === undefined) run(argv);
else process.stdout.write(answer);
