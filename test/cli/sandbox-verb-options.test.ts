// `svc sandbox` is a command (it starts the sandbox, with --port, --data…) and a group
// of verbs (pagar, log…). Its start flags are its own: a verb's help does not list
// them as svc's global options, and a verb given one refuses it instead of running as
// if it had been heard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

let sb: InProcessSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb?.close());

const section = (page: string, title: string) => {
  const at = page.indexOf(title);
  if (at < 0) return '';
  const end = page.indexOf('\n\n', at);
  return page.slice(at, end < 0 ? undefined : end);
};

describe("svc sandbox's verbs and its start flags", () => {
  it('a verb’s help lists svc’s own options as global, not the sandbox’s start flags', async () => {
    for (const verb of ['pagar', 'log', 'reloj']) {
      const r = await svc(['sandbox', verb, '--help']);
      expect(r.exitCode, verb).toBe(0);
      const globals = section(r.stdout, 'Opciones globales:');
      expect(globals, verb).toContain('--json');
      for (const flag of ['--port', '--data', '--webhook-url', '--por-pagina'])
        expect(globals, `${verb} ${flag}`).not.toContain(flag);
    }
    const own = await svc(['sandbox', '--help']);
    expect(section(own.stdout, 'Opciones:')).toContain('--port <puerto>');
  });

  it('a start flag given to a verb, after it or before it, is refused (exit 2) and nothing is done', async () => {
    const c = await sb.cobro();
    for (const args of [
      ['sandbox', 'pagar', String(c.id), '--port', '5'],
      ['sandbox', '--data', 'x.jsonl', 'pagar', String(c.id)],
    ]) {
      const r = await svc(args, { env: sb.env });
      expect([r.exitCode, r.stderr.split('\n')[0]], args.join(' ')).toEqual([
        2,
        `error: ${args.includes('--port') ? '--port' : '--data'} es una opción de svc sandbox (al arrancarlo), no de svc sandbox pagar`,
      ]);
    }
    expect((await sb.api('GET', `/v1/cobros/${c.id}`)).body.data.estado).toBe('PENDIENTE');
    // Svc's own options go anywhere, as on every command.
    const json = await svc(['sandbox', 'pagar', String(c.id), '--json'], { env: sb.env });
    expect(json.exitCode, json.stderr).toBe(0);
  });
});
