// The floor svc webhook listen is measured against (listen.bench.mjs): the same work
// with nothing of svc's, what Node and undici alone cost for it. A node:http server
// reads each POST's body, forwards it with undici's dispatch (as the listener does) to
// the app, appends a JSON line about it to a file opened O_DSYNC through Node's thread
// pool, the lines queued meanwhile going in the next write (group commit), and answers
// only once its line is written. No signature check, no line on stdout, no journal
// format: what the listener costs above this is svc's own.
// FLOOR_DOES (default `forward,journal`) says which of the two it does: `forward`,
// `journal`, or neither (empty: read and answer 200), to see what each piece costs.
//   node listen-floor.cjs <app url> <file>   prints the port it listens on
'use strict';
const http = require('node:http');
const { constants: C, open, write } = require('node:fs');
const { join } = require('node:path');
const { Agent } = require(join(__dirname, '..', '..', '..', 'node_modules', 'undici'));

const app = new URL(process.argv[2]);
const does = new Set((process.env.FLOOR_DOES ?? 'forward,journal').split(','));
const agent = new Agent({ connections: 64, keepAliveTimeout: 4_000 });
let fd;
let queued = [];
let writing = false;
function append(line, done) {
  if (!does.has('journal')) return done();
  queued.push({ line, done });
  if (!writing) setImmediate(flush);
  writing = true;
}
function flush() {
  const batch = queued;
  queued = [];
  write(fd, Buffer.from(batch.map((q) => q.line).join('')), (err) => {
    if (err) throw err;
    for (const q of batch) q.done();
    if (queued.length) flush();
    else writing = false;
  });
}
function forward(body, headers, done) {
  if (!does.has('forward')) return done(200);
  let status = 0;
  agent.dispatch(
    {
      origin: app.origin,
      path: app.pathname,
      method: 'POST',
      headers,
      body,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    },
    {
      onRequestStart() {},
      onResponseStart(_c, s) {
        status = s;
      },
      onResponseData() {},
      onResponseEnd() {
        done(status);
      },
      onResponseError() {
        done(502);
      },
    },
  );
}
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    forward(
      body,
      { 'content-type': req.headers['content-type'] ?? 'application/json' },
      (status) => {
        const line = `${JSON.stringify({ received_at: new Date().toISOString(), body: body.toString('utf8'), status })}\n`;
        append(line, () => {
          res.writeHead(status, { 'content-length': 0 });
          res.end();
        });
      },
    );
  });
});
open(process.argv[3], C.O_APPEND | C.O_CREAT | C.O_WRONLY | C.O_DSYNC, 0o600, (err, f) => {
  if (err) throw err;
  fd = f;
  server.listen(0, '127.0.0.1', () => console.log(server.address().port));
});
process.on('SIGINT', () => process.exit(0));
