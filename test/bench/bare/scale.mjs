// The floors scale.bench.mjs sets svc's commands beside: the same work through the same
// API (or the same file) with node:http and nothing else, each reply read whole and
// parsed with JSON.parse. The sandbox pages its lists as users start it (100 a page):
// a list is read page by page, following each reply's `next` (the pages svc reads), and
// a reader that has what it needs stops asking. `node scale.mjs <task> [args]`,
// SVC_BASE_URL and SVC_API_KEY set:
//   read-data FILE       read a data file's bytes and JSON.parse each line (a start's floor)
//   list-limit N         GET /v1/cobros, print the first N as JSON (one page for N <= 100)
//   list-csv             GET /v1/cobros, every page, print every request as a CSV line
//   totals               GET /v1/liquidaciones, sum bruto, te_cobramos and te_queda (cents)
//   caso REF             GET /v1/cobros?q=REF, then transactions, refunds and settlements of it
//   lote FILE            GET /v1/cobros (referencias), then POST /v1/cobros for each CSV row
//   plan FILE            GET /v1/cobros and /v1/devoluciones (as svc for rows that name
//                        no transaction), then check each refund row
//   journal FILE ID      read a listener journal's files (FILE.N … FILE.1, FILE) line by
//                        line, print the entry ID
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { Agent, request } from 'node:http';

const [task, ...args] = process.argv.slice(2);
// One kept-alive connection for a list's pages and a run of writes (as svc's client).
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const out = (text) => process.stdout.write(text);

/** One call; resolves with the reply's body, parsed. */
function call(method, path, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      new URL(path, process.env.SVC_BASE_URL),
      {
        method,
        agent,
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
          else resolve(JSON.parse(text));
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The items of a list, page after page (each page's `next`, until there is none). */
async function* list(path) {
  for (let next = path; next;) {
    const page = await call('GET', next);
    yield* page.data;
    next = page.next ?? null;
  }
}

/** The first n items of a list: pages read only until n are in. */
async function first(path, n) {
  const items = [];
  if (n > 0) for await (const x of list(path)) if (items.push(x) >= n) break;
  return items;
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
    out(`${JSON.stringify(await first('/v1/cobros', Number(args[0])), null, 2)}\n`);
    break;
  case 'list-csv':
    for await (const c of list('/v1/cobros'))
      out(
        `${[c.id, c.codigo, c.concepto, c.monto, c.monto_cobrado, c.estado, c.referencia, c.created_at].join(',')}\n`,
      );
    break;
  case 'totals': {
    let [bruto, fee, net] = [0n, 0n, 0n];
    for await (const l of list('/v1/liquidaciones'))
      ((bruto += cents(l.bruto)), (fee += cents(l.te_cobramos)), (net += cents(l.te_queda)));
    out(`${bruto} ${fee} ${net}\n`);
    break;
  }
  case 'caso': {
    let c;
    for await (const x of list(`/v1/cobros?q=${encodeURIComponent(args[0])}`))
      if (x.referencia === args[0]) c = x;
    const of = async (path) => {
      const mine = [];
      for await (const x of list(path)) if (x.cobro_id === c.id) mine.push(x);
      return mine;
    };
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
    const rows = csvRows(args[0]);
    const wanted = new Set(rows.map(([, , referencia]) => referencia));
    for await (const c of list('/v1/cobros'))
      if (wanted.has(c.referencia)) throw new Error(`${c.referencia} ya existe`);
    for (const [concepto, monto, referencia] of rows) {
      const c = (await call('POST', '/v1/cobros', { concepto, monto, referencia })).data;
      out(`${referencia},${c.id},${c.url}\n`);
    }
    break;
  }
  case 'plan': {
    // As svc plans rows that name no transaction: the requests the rows name, then their
    // refunds; a row enters while its request is paid and has something left to refund.
    const rows = csvRows(args[0]);
    const wanted = new Set(rows.map(([ref]) => ref));
    const byRef = new Map();
    for await (const c of list('/v1/cobros'))
      if (wanted.has(c.referencia)) byRef.set(c.referencia, c);
    const ids = new Set([...byRef.values()].map((c) => c.id));
    const refunded = new Map();
    for await (const d of list('/v1/devoluciones'))
      if (ids.has(d.cobro_id))
        refunded.set(d.cobro_id, (refunded.get(d.cobro_id) ?? 0n) + cents(d.monto));
    let ok = 0;
    for (const [ref] of rows) {
      const c = byRef.get(ref);
      if (c && c.estado === 'PAGADA' && cents(c.monto_cobrado) > (refunded.get(c.id) ?? 0n)) ok++;
    }
    out(`${ok} filas entran\n`);
    break;
  }
  case 'journal': {
    // The listener's files, oldest first: FILE.N … FILE.1, then FILE.
    const want = `"id":"${args[1]}"`;
    const files = [args[0]];
    while (existsSync(`${args[0]}.${files.length}`)) files.unshift(`${args[0]}.${files.length}`);
    search: for (const file of files)
      for (const l of lines(file))
        if (l.includes(want)) {
          out(`${JSON.stringify(JSON.parse(l), null, 2)}\n`);
          break search;
        }
    break;
  }
  default:
    throw new Error(`unknown task ${task}`);
}
agent.destroy();
