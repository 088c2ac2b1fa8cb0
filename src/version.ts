// The version of svc, read once from package.json. The compiled modules (dist/*.js)
// and src/ sit one level below it, the bundled chunks (dist/chunks/) two: the first
// package.json found going up is svc's.
import { readFileSync } from 'node:fs';

function readVersion(): string {
  for (const up of ['../package.json', '../../package.json']) {
    try {
      return (JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { version: string })
        .version;
    } catch {
      // Not at this level: the next one up.
    }
  }
  return '0.0.0';
}

export const VERSION: string = readVersion();
