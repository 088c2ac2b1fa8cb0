// get.mjs with node:http taken as svc's bundle takes Node's modules
// (process.getBuiltinModule, src/build/bundle.mjs): on Node 22 and 24 an ES import
// of node:http also loads Node's own undici. startup.bench.mjs prints svc against it
// for the record; the targets are against get.mjs.
const { request } = process.getBuiltinModule('node:http');

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
