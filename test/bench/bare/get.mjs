// The floor svc's read commands are measured against (startup.bench.mjs): the same
// authenticated GET with node:http, `data` printed as `svc … --json` prints it.
import { request } from 'node:http';

const url = new URL(process.argv[2], process.env.SVC_BASE_URL);
request(url, { headers: { authorization: `Bearer ${process.env.SVC_API_KEY}` } }, (res) => {
  const chunks = [];
  res.on('data', (c) => chunks.push(c));
  res.on('end', () =>
    process.stdout.write(
      `${JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')).data, null, 2)}\n`,
    ),
  );
}).end();
