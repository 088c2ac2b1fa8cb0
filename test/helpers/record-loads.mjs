// Preloaded with --import in tests: records every module URL the CLI loads into
// the file named by SVC_RECORD_LOADS, to prove --help and --version stay light.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (process.env.SVC_RECORD_LOADS) appendFileSync(process.env.SVC_RECORD_LOADS, url + '\\n');
  return next(url, context);
}`),
);
