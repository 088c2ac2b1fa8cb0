// The floors scale.bench.mjs sets svc's commands beside: the same work through the same
// API (or the same file) with node:http and nothing else, read whole and parsed with
// JSON.parse. `node scale.mjs <task> [args]`, SVC_BASE_URL and SVC_API_KEY set:
//   read-data FILE       read a data file's bytes and JSON.parse each line (a start's floor)
//   list-limit N         GET /v1/cobros, print the first N as JSON
//   list-csv             GET /v1/cobros, print every request as a CSV line
//   totals               GET /v1/liquidaciones, sum bruto, te_cobramos and te_queda (cents)
//   caso REF             GET /v1/cobros?q=REF, then transactions, refunds and settlements of it
//   lote FILE            GET /v1/cobros (referencias), then POST /v1/cobros for each CSV row
//   plan FILE            GET /v1/cobros and /v1/transacciones, then check each refund row
//   journal FILE ID      read a listener journal line by line, print the entry ID
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { Agent, request } from 'node:http';

const [task, ...args] = process.argv.slice(2);
// One kept-alive connection for a run of writes; a read opens its own, since parsing
// a million items takes longer than the sandbox keeps an idle connection (5 s) and the
// next request on it would meet a closed socket.
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const out = (text) => process.stdout.write(text);

function call(method, path, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      new URL(path, process.env.SVC_BASE_URL),
      {
        method,
        agent: method === 'GET' ? false : agent,
        headers: {
          authorization: `Bearer ${process.env.SVC_API_KEY}`,
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode >= 300) reject(new Error(`${method} ${path}: ${res.statusCode}`));
          else resolve(JSON.parse(text).data);
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Each line of a file, read 1 MiB at a time. */
function* lines(file) {
  const fd = openSync(file, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  let carry = '';
  for (let pos = 0; ;) {
    const n = readSync(fd, buf, 0, buf.length, pos);
    if (n === 0) break;
    pos += n;
    const parts = (carry + buf.toString('utf8', 0, n)).split('\n');
    carry = parts.pop();
    yield* parts;
  }
  if (carry) yield carry;
  closeSync(fd);
}

const cents = (a) => BigInt(a.replace('.', ''));
const csvRows = (file) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(','));

switch (task) {
  case 'read-data': {
    let n = 0;
    for (const l of lines(args[0])) if (l) (JSON.parse(l), n++);
    out(`${n} lines\n`);
    break;
  }
  case 'list-limit':
    out(
      `${JSON.stringify((await call('GET', '/v1/cobros')).slice(0, Number(args[0])), null, 2)}\n`,
    );
    break;
  case 'list-csv':
    for (const c of await call('GET', '/v1/cobros'))
      out(
        `${[c.id, c.codigo, c.concepto, c.monto, c.monto_cobrado, c.estado, c.referencia, c.created_at].join(',')}\n`,
      );
    break;
  case 'totals': {
    let [bruto, fee, net] = [0n, 0n, 0n];
    for (const l of await call('GET', '/v1/liquidaciones'))
      ((bruto += cents(l.bruto)), (fee += cents(l.te_cobramos)), (net += cents(l.te_queda)));
    out(`${bruto} ${fee} ${net}\n`);
    break;
  }
  case 'caso': {
    const [c] = (await call('GET', `/v1/cobros?q=${encodeURIComponent(args[0])}`)).filter(
      (x) => x.referencia === args[0],
    );
    const of = async (path) => (await call('GET', path)).filter((x) => x.cobro_id === c.id);
    const [txs, devs, liqs] = [
      await of('/v1/transacciones'),
      await of('/v1/devoluciones'),
      await of('/v1/liquidaciones'),
    ];
    out(
      `${JSON.stringify({ cobro: c, transacciones: txs, devoluciones: devs, liquidaciones: liqs })}\n`,
    );
    break;
  }
  case 'lote': {
    const taken = new Set((await call('GET', '/v1/cobros')).map((c) => c.referencia));
    for (const [concepto, monto, referencia] of csvRows(args[0])) {
      if (taken.has(referencia)) throw new Error(`${referencia} ya existe`);
      const c = await call('POST', '/v1/cobros', { concepto, monto, referencia });
      out(`${referencia},${c.id},${c.url}\n`);
    }
    break;
  }
  case 'plan': {
    const byRef = new Map((await call('GET', '/v1/cobros')).map((c) => [c.referencia, c]));
    const paid = new Map();
    for (const t of await call('GET', '/v1/transacciones'))
      if (t.estado === 'ACREDITADO') paid.set(t.cobro_id, t);
    let ok = 0;
    for (const [ref] of csvRows(args[0])) {
      const c = byRef.get(ref);
      if (c && c.estado === 'PAGADA' && paid.has(c.id)) ok++;
    }
    out(`${ok} filas entran\n`);
    break;
  }
  case 'journal': {
    const want = `"id":"${args[1]}"`;
    for (const l of lines(args[0]))
      if (l.includes(want)) {
        out(`${JSON.stringify(JSON.parse(l), null, 2)}\n`);
        break;
      }
    break;
  }
  default:
    throw new Error(`unknown task ${task}`);
}
agent.destroy();
