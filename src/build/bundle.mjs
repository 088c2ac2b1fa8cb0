// `npm run bundle`: bundles the CLI with rolldown (start-up, #16):
// - dist/cli/entry.cjs and dist/chunks/: a `core` chunk with what nearly every call
//   runs (main, the command tree and its help, the profile, the API client, the
//   output, commander, zod, picocolors), a chunk per verb, and chunks for what only
//   some calls load (the sandbox, the listener, prompts, the spinner, tables, QR).
//   On Node 20, which keeps no compile cache, each file loaded costs its own
//   resolve, read and compile: a read call loads 5 files instead of 45.
// - dist/cli/quick.cjs on its own, then what it answers without loading the rest:
//   dist/cli/quick.json (the version, and where each help page is) and
//   dist/cli/help.txt (every page, as `svc … --help` prints it at 80 columns).
//   Runs after `tsc -p tsconfig.build.json`, whose dist/main.js renders the pages:
//   they are what main prints, never a second copy to keep in step
//   (test/cli/quick.test.ts compares them with main).
import { rolldown } from 'rolldown';
import { rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = `${root}dist`;
const BUILTIN = 'svc-builtin:';

/**
 * Node's modules are taken with process.getBuiltinModule, not `import … from 'node:…'`:
 * an ES import of a built-in builds its ES facade, which reads every export, lazy
 * ones included. On Node 22 and 24 that loads Node's own copy of undici for
 * `node:http` (http.WebSocket) and WebCrypto for `node:crypto`: about 20 ms of
 * every call for nothing svc uses. Each built-in becomes a CommonJS module of one
 * line, whose exports are read when they are used, a dynamic import() of one too:
 * the bundle then holds no import() at all, which Node 20 could not run from the code
 * cache svc keeps there (bin/code-cache.cjs) without an experimental warning.
 * node:module stays Node's own: rolldown's own helpers import it.
 */
const builtins = {
  name: 'svc-builtins',
  resolveId(source) {
    const name = source.replace(/^node:/, '');
    if (!builtinModules.includes(name) || name === 'module') return null;
    return { id: `${BUILTIN}node:${name}` };
  },
  load(id) {
    if (!id.startsWith(BUILTIN)) return null;
    return {
      code: `module.exports = process.getBuiltinModule(${JSON.stringify(id.slice(BUILTIN.length))});`,
      moduleType: 'js',
    };
  },
};

const src = `${root}src/`;
/** A verb's implementation: src/cli/commands/<noun>/<verb>.ts (index.ts is the noun's metadata). */
const verb = /^cli\/commands\/[^/]+\/(?!index\.ts$)[^/]+$/;
/** Loaded by some calls only: they keep chunks of their own. */
const apart = /^(sandbox|webhooks|mcp)\/|qr\.ts$|keyring/;
// What of zod only the MCP SDK loads (svc mcp): its v3, the classic API, the
// locales and JSON Schema output stay in that command's chunk, not in every call's.
const mcpZod =
  /\/node_modules\/zod\/(v3|v4\/classic|v4\/locales)\/|\/node_modules\/zod\/v4\/core\/(to-json-schema|json-schema-processors|registries|doc|memoizer)\.js$/;
const inCore = (id) => {
  const path = id.replaceAll('\\', '/');
  if (id.startsWith(BUILTIN) || /^\0?rolldown[:/]runtime/.test(id)) return true;
  if (/\/node_modules\/(commander|zod|picocolors)\//.test(path)) return !mcpZod.test(path);
  if (!path.startsWith(src.replaceAll('\\', '/'))) return false;
  const rel = path.slice(src.length);
  return !verb.test(rel) && !apart.test(rel);
};
// The tables' packages are loaded when a table is printed, not by every call.
const table =
  /[\\/]node_modules[\\/](cli-table3|@colors|string-width|strip-ansi|ansi-regex|emoji-regex|is-fullwidth-code-point)[\\/]/;

// A dynamic import of a module already in `core` does not move it: expected here.
const onLog = (level, log, handler) => {
  if (log.code !== 'INEFFECTIVE_DYNAMIC_IMPORT') handler(level, log);
};

// The dashboard's script (src/sandbox/panel/browser/panel.ts and the modules it imports,
// type-checked for the browser by `npm run typecheck`): bundled into one file, served inline by the sandbox (panel/script.ts
// reads it), so it must not hold what would end its <script> element.
const panel = await rolldown({
  input: `${src}sandbox/panel/browser/panel.ts`,
  platform: 'browser',
  onLog,
});
const {
  output: [panelChunk],
} = await panel.write({ file: `${dist}/panel/panel.js`, format: 'iife', codeSplitting: false });
if (/<\/script|<!--/i.test(panelChunk.code))
  throw new Error('dist/panel/panel.js holds "</script" or "<!--": it cannot be served inline');

rmSync(`${dist}/chunks`, { recursive: true, force: true });
const cli = await rolldown({
  input: { 'cli/entry': `${src}cli/entry.ts` },
  platform: 'node',
  plugins: [builtins],
  onLog,
});
await cli.write({
  dir: dist,
  // CommonJS, as bin/svc.js: require() reads and links a file synchronously, where
  // the ES loader resolves, reads and links each one through promises (3 to 5 ms of
  // a read call on Node 20; the same on 22 and 24, whose compile cache serves both).
  format: 'cjs',
  entryFileNames: '[name].cjs',
  chunkFileNames: 'chunks/[name]-[hash].cjs',
  codeSplitting: {
    groups: [
      { name: 'core', test: inCore, priority: 2 },
      { name: 'table', test: table, priority: 1 },
    ],
  },
});
// On its own, as CommonJS like bin/svc.js: no chunk, no helper, nothing else to load.
const quickBundle = await rolldown({ input: `${src}cli/quick.ts`, platform: 'node', onLog });
await quickBundle.write({ file: `${dist}/cli/quick.cjs`, format: 'cjs', codeSplitting: false });

const { quickPages } = await import(`${dist}/build/quick-pages.js`);
const { index, text } = await quickPages();
writeFileSync(`${dist}/cli/help.txt`, text);
writeFileSync(`${dist}/cli/quick.json`, `${JSON.stringify(index)}\n`);
