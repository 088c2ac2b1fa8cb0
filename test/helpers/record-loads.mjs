// Preloaded with --import in tests: records every module URL the CLI loads into
// the file named by SVC_RECORD_LOADS, to prove --help and --version stay light:
// ES modules through a loader hook, CommonJS files (bin/svc.js, dist/cli/quick.cjs)
// as they are loaded.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (process.env.SVC_RECORD_LOADS && context.format !== 'commonjs') appendFileSync(process.env.SVC_RECORD_LOADS, url + '\\n');
  return next(url, context);
}`),
);

// Module.prototype.load, not _compile: on Node 20 svc compiles its own files itself
// (bin/code-cache.cjs), and every CommonJS file is still loaded through here.
const load = Module.prototype.load;
Module.prototype.load = function (filename) {
  if (process.env.SVC_RECORD_LOADS)
    appendFileSync(process.env.SVC_RECORD_LOADS, `${pathToFileURL(filename).href}\n`);
  return load.call(this, filename);
};
