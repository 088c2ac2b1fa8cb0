// Preloaded with --import in tests: records every module URL the CLI loads into
// the file named by SVC_RECORD_LOADS, to prove --help and --version stay light:
// ES modules through a loader hook, CommonJS files (bin/svc.js, dist/cli/quick.cjs)
// as they are compiled.
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

const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) {
  if (process.env.SVC_RECORD_LOADS) appendFileSync(process.env.SVC_RECORD_LOADS, `${pathToFileURL(filename).href}\n`);
  return compile.call(this, content, filename);
};
