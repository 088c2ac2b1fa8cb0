#!/usr/bin/env node
// Entry point of `svc`: hands argv to the bundled CLI (dist/cli/entry.js and its
// chunks in dist/chunks/, loaded per command: `npm run build`), nothing else. Node 22.1+
// keeps the compiled code of svc and its dependencies on disk (the compile cache),
// so every run after the first starts faster; Node 20 has no such cache. The CLI
// maps every error to one line itself; this only covers a build that cannot load.
import module from 'node:module';

module.enableCompileCache?.();
let run;
try {
  ({ run } = await import('../dist/cli/entry.js'));
} catch (err) {
  const why = String(err?.message ?? err).split('\n')[0];
  process.stderr.write(`error: svc no pudo arrancar (${why}); reinstalá svc\n`);
  process.exit(1);
}
run(process.argv.slice(2));
