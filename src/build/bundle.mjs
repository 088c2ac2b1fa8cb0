// `npm run bundle`: bundles the CLI with esbuild: dist/cli/entry.js plus chunks in
// dist/chunks/, loaded per command, and dist/cli/quick.js on its own. Then writes
// what quick.js answers without loading the rest (#16): dist/cli/quick.json (the
// version, and where each help page is) and dist/cli/help.txt (every page, as
// `svc … --help` prints it at 80 columns). Runs after `tsc -p tsconfig.build.json`,
// whose dist/main.js renders the pages: they are what main prints, never a second
// copy to keep in step (test/cli/quick.test.ts compares them with main).
import { build } from 'esbuild';
import { rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = `${root}dist`;

/**
 * Node's modules are taken with process.getBuiltinModule, not `import … from 'node:…'`:
 * an ES import of a built-in builds its ES facade, which reads every export,
 * lazy ones included. On Node 22 and 24 that loads Node's own copy of undici for
 * `node:http` (http.WebSocket) and WebCrypto for `node:crypto`: about 20 ms of
 * every call for nothing svc uses. Each built-in becomes a CommonJS module of one
 * line, whose exports esbuild reads when they are used. A dynamic import() stays
 * Node's own (esbuild would give it only a default export); those are off the
 * start-up path anyway.
 */
const builtins = {
  name: 'svc-builtins',
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, ({ path, kind }) => {
      const name = path.replace(/^node:/, '');
      if (!builtinModules.includes(name)) return undefined;
      return kind === 'dynamic-import' ? { path: `node:${name}`, external: true } : { path: `node:${name}`, namespace: 'svc-builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'svc-builtin' }, ({ path }) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(path)});`,
      loader: 'js',
    }));
  },
};

const common = { bundle: true, format: 'esm', platform: 'node', target: 'node20.19', logLevel: 'warning', plugins: [builtins] };
rmSync(`${dist}/chunks`, { recursive: true, force: true });
await build({
  ...common,
  entryPoints: [`${root}src/cli/entry.ts`],
  splitting: true,
  outbase: `${root}src`,
  outdir: dist,
  chunkNames: 'chunks/[name]-[hash]',
  // Dependencies written as CommonJS (commander…) call require().
  banner: { js: "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);" },
});
// Apart from the chunks: a split build would have it import esbuild's helpers.
await build({ ...common, entryPoints: [`${root}src/cli/quick.ts`], outfile: `${dist}/cli/quick.js` });

const { quickPages } = await import(`${dist}/cli/quick-pages.js`);
const { index, text } = await quickPages();
writeFileSync(`${dist}/cli/help.txt`, text);
writeFileSync(`${dist}/cli/quick.json`, `${JSON.stringify(index)}\n`);
