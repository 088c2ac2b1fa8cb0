#!/usr/bin/env node
// `npm run conformance`: the official MCP conformance suite (@modelcontextprotocol/conformance)
// against `svc mcp --http`, for the scenarios that apply to a tools server. It runs on
// Node 22 or later (it uses fs.globSync), so npx brings one from the registry; svc runs on
// this machine's Node against a sandbox of its own. Not part of npm test (npx downloads).
// Prints each scenario's checks; exits 1 when any check is not SUCCESS. The suite sends
// no token: a proxy on loopback adds svc's (Authorization: Bearer) to every request it
// passes on, Host and Origin untouched.
import { spawn } from 'node:child_process';
import { createServer, request } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(ROOT, 'bin', 'svc.js');
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];
const SUITE = '@modelcontextprotocol/conformance@0.1.16';
const dir = mkdtempSync(join(tmpdir(), 'svc-conformance-'));

/** Starts `svc <args>` and resolves with the first stdout match of `pattern` (30 s at most). */
function start(args, env, pattern) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`svc ${args[0]} did not start: ${out}`)),
      30_000,
    );
    const seen = (d) => {
      out += d;
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, m });
      }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.on('exit', (code) => reject(new Error(`svc ${args[0]} ended (${code}): ${out}`)));
  });
}

/** Runs a command to its end: its output and exit code. */
function run(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => resolve({ stdout, stderr, status }));
  });
}

const sandbox = await start(
  ['sandbox', '--port', '0', '--ready-delay', '0'],
  {},
  /SVC_BASE_URL=(\S+) \\\s+SVC_API_KEY=(\S+)/,
);
const env = {
  SVC_BASE_URL: sandbox.m[1],
  SVC_API_KEY: sandbox.m[2],
  SVC_CONFIG_DIR: join(dir, 'config'),
  SVC_DATA_DIR: join(dir, 'data'),
  SVC_KEYRING: 'off',
};
const mcp = await start(['mcp', '--http', '0', '--json'], env, /^(\{.*"token".*\})$/m);
const ready = JSON.parse(mcp.m[1]);
const target = new URL(ready.url);
const proxy = createServer((req, res) => {
  const out = request(
    target,
    {
      method: req.method,
      path: req.url,
      headers: { ...req.headers, authorization: `Bearer ${ready.token}` },
    },
    (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    },
  );
  out.on('error', () => res.destroy());
  req.pipe(out);
});
await new Promise((done) => proxy.listen(0, '127.0.0.1', done));
const url = `http://127.0.0.1:${proxy.address().port}/mcp`;
let failed = 0;
try {
  for (const scenario of SCENARIOS) {
    // Not spawnSync: the proxy runs in this process and must answer while the suite runs.
    const r = await run(
      'npx',
      [
        '-y',
        '-p',
        'node@22',
        '-p',
        SUITE,
        '--',
        'conformance',
        'server',
        '--url',
        url,
        '--scenario',
        scenario,
      ],
      { cwd: dir },
    );
    const checks = `${r.stdout}${r.stderr}`
      .split('\n')
      .filter((l) => /\[[^\]]+\] .*(SUCCESS|FAILURE|WARNING)/.test(l))
      .map((l) => l.replace(/\u001b\[[0-9;]*m/g, '').replace(/^\S+\s+/, ''));
    const ok = checks.length > 0 && checks.every((l) => l.includes('SUCCESS'));
    if (!ok) failed++;
    console.log(
      `${ok ? 'ok  ' : 'FAIL'} ${scenario}${checks.length ? '' : ` (no checks: exit ${r.status})`}`,
    );
    for (const l of checks) console.log(`       ${l}`);
  }
} finally {
  proxy.close();
  proxy.closeAllConnections();
  mcp.child.kill();
  sandbox.child.kill();
}
console.log(
  `${SUITE} against svc mcp --http (Node ${process.version}): ${SCENARIOS.length - failed} of ${SCENARIOS.length} scenarios pass`,
);
process.exitCode = failed ? 1 : 0;
