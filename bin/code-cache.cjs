// Node 20 keeps no compile cache (module.enableCompileCache came with 22.1), so every
// call of svc there compiled its bundle again: the core chunk alone is ~560 KB. This
// keeps V8's code cache of svc's own bundle files, as Node 22+ does for every module:
// each file of dist/ is compiled with the cache of its last run, and the cache is
// written (once, when the process ends, so it holds the functions that run used) when
// there was none or V8 rejected it.
//
// Where: a folder of the user's own in the temporary folder, mode 0700. A code cache is
// code, so the folder is used only when it is a real directory owned by this user that
// nobody else can write; otherwise svc runs without a cache, as before. A file's cache
// is named after its path, size, inode and modification time: V8 checks only the
// source's length, so a rebuilt file of the same size must not meet an old cache.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

/** The cache folder, or undefined when it is missing, shared or not a folder. */
function cacheFolder() {
  if (typeof process.getuid !== 'function') return undefined;
  const uid = process.getuid();
  const dir = path.join(require('node:os').tmpdir(), `svc-code-cache-${uid}`);
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if (err.code !== 'EEXIST') return undefined;
  }
  try {
    const st = fs.lstatSync(dir);
    if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o077) !== 0) return undefined;
  } catch {
    return undefined;
  }
  return dir;
}

/** FNV-1a of a path: svc installed in two places keeps two caches, not one overwritten by turns. */
function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/** Compile svc's own files under `root` with a code cache kept in the cache folder. */
function install(root) {
  // Node 22+ reads the same variable to run without its compile cache.
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return;
  const dir = cacheFolder();
  if (dir === undefined) return;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  const pending = [];
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename, ...rest) {
    if (!filename.startsWith(prefix) || !filename.endsWith('.cjs'))
      return compile.call(this, content, filename, ...rest);
    let st;
    try {
      st = fs.statSync(filename);
    } catch {
      return compile.call(this, content, filename, ...rest);
    }
    const owner = `${hash(filename)}-${path.basename(filename)}-`;
    const file = path.join(
      dir,
      `${owner}${st.size}-${st.ino}-${Math.trunc(st.mtimeMs)}-${process.version}-${process.arch}`,
    );
    let cachedData;
    try {
      cachedData = fs.readFileSync(file);
    } catch {}
    const script = new vm.Script(Module.wrap(content), {
      filename,
      cachedData,
      // The bundle holds no import() (src/build/bundle.mjs); were one added, it would still run.
      importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    if (cachedData === undefined || script.cachedDataRejected)
      pending.push({ script, file, owner });
    const mod = this;
    const req = (id) => mod.require(id);
    req.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
    req.main = require.main;
    req.cache = Module._cache;
    return script
      .runInThisContext({ displayErrors: true })
      .call(mod.exports, mod.exports, req, mod, filename, path.dirname(filename));
  };
  process.once('exit', () => {
    if (pending.length === 0) return;
    const monthAgo = Date.now() - 30 * 86_400_000;
    // The caches of earlier builds of these files go, and any not written for a month (a
    // build since removed): only the newest is ever read. One pass over the folder.
    const owners = pending.map((p) => p.owner);
    try {
      for (const old of fs.readdirSync(dir)) {
        const at = path.join(dir, old);
        if (
          owners.some((owner) => old.startsWith(owner)) ||
          fs.lstatSync(at, { throwIfNoEntry: false })?.mtimeMs < monthAgo
        )
          fs.rmSync(at, { force: true });
      }
    } catch {
      // A cache left behind costs disk only: the next run reads the newest by its name.
    }
    for (const { script, file } of pending) {
      try {
        const tmp = `${file}.${process.pid}`;
        fs.writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
        fs.renameSync(tmp, file);
      } catch {
        // Only speed is lost: the next run compiles again.
      }
    }
  });
}

module.exports = { install };
