// The answers svc gives without loading itself (start-up, #16): `--version` and
// every help page, read from what the build wrote (src/build/bundle.mjs:
// dist/cli/quick.json, the index, and dist/cli/help.txt, the pages). bin/svc.js
// asks here first. Bundled on its own as CommonJS (dist/cli/quick.cjs), as bin/svc.js
// is: Node starts a CommonJS file quicker than an ES module, and this one imports
// nothing but Node's fs.

export interface QuickIndex {
  version: string;
  /** Each command path ("" for svc itself, "cobro ver", aliases too): its page, a byte range of help.txt. */
  help: Record<string, [number, number]>;
}

/** The widest help svc prints, and the width of the pages (cli/program.ts wraps at it). */
export const HELP_WIDTH = 80;

/** Which help page argv asks for: `svc`, `svc [words…] --help|-h`, `svc help [word]`. */
export function helpKey(argv: readonly string[]): string | undefined {
  if (argv.length === 0) return '';
  const last = argv[argv.length - 1];
  if (last === '--help' || last === '-h') {
    const words = argv.slice(0, -1);
    return words.every((w) => /^[a-z][a-z0-9-]*$/.test(w)) ? words.join(' ') : undefined;
  }
  if (argv[0] === 'help' && argv.length <= 2) return argv[1] ?? '';
  return undefined;
}

/**
 * The version, or the help page argv asks for, as main prints it, from the build's
 * files in `dir`. Undefined when argv asks for anything else, when the terminal is
 * narrower than the pages, or when the build's files are not there (svc run from
 * its sources): main answers then.
 */
export function quickAnswer(
  argv: readonly string[],
  dir: string,
  stdout: { isTTY?: boolean; columns?: number } = process.stdout,
): string | undefined {
  const version = argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V');
  const key = version ? undefined : helpKey(argv);
  if (!version && key === undefined) return undefined;
  if (!version && stdout.isTTY && (stdout.columns || HELP_WIDTH) < HELP_WIDTH) return undefined;
  const { readFileSync } = process.getBuiltinModule('node:fs');
  try {
    const index = JSON.parse(readFileSync(`${dir}/quick.json`, 'utf8')) as QuickIndex;
    if (version) return `${index.version}\n`;
    const range = index.help[key!];
    return range && readFileSync(`${dir}/help.txt`).subarray(range[0], range[1]).toString('utf8');
  } catch {
    return undefined;
  }
}
