// svc comandos --json: the whole command tree as assistants and tooling read it, from
// the metadata that builds help and completions (in process: no request is made).
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/registry.js';
import { EXIT } from '../../src/errors.js';
import { displayWidth } from '../../src/text.js';
import { svc, svcOnTerminal } from '../helpers/inproc.js';

describe('svc comandos', () => {
  it('on a terminal of 80 and 60 columns each summary goes on under itself, broken at spaces; piped, one line each', async () => {
    for (const cols of [80, 60, 30]) {
      const r = await svcOnTerminal(['comandos'], {}, cols);
      expect(r.exitCode).toBe(0);
      const lines = r.screen.split('\n').filter((l) => l !== '');
      expect(
        lines.filter((l) => displayWidth(l) > cols),
        `${cols}`,
      ).toEqual([]);
      // Read back with the breaks as spaces, every summary is whole: no word was cut.
      const flat = r.screen.replace(/\s+/g, ' ');
      for (const c of commands)
        expect(flat, `${cols}`).toContain(` ${c.name} ${c.summary} `.slice(1));
    }
    const piped = await svc(['comandos']);
    expect(piped.stdout.trim().split('\n')).toHaveLength(commands.length);
  });

  it('--json: every command with its arguments, options (choices, defaults), examples, and the exit codes', async () => {
    const r = await svc(['comandos', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const tree = JSON.parse(r.stdout);
    expect(tree.comandos.map((c: { nombre: string }) => c.nombre)).toEqual(
      commands.map((c) => c.name),
    );
    for (const c of tree.comandos) {
      const def = commands.find((d) => d.name === c.nombre)!;
      expect(
        c.opciones.map((o: { flags: string }) => o.flags),
        c.nombre,
      ).toEqual((def.options ?? []).map((o) => o.flags));
      expect(c.ejemplos.length, c.nombre).toBeGreaterThan(0);
      expect(c.uso.startsWith(`svc ${c.nombre}`)).toBe(true);
    }
    const byName = (n: string) => tree.comandos.find((c: { nombre: string }) => c.nombre === n);
    expect(
      byName('cobro listar').opciones.find((o: { nombre: string }) => o.nombre === 'estado'),
    ).toMatchObject({ valor: 'estado', valores: expect.arrayContaining(['PAGADA']) });
    expect(
      byName('cobro crear').opciones.find((o: { nombre: string }) => o.nombre === 'no-qr'),
    ).toMatchObject({ valor: null, default: true });
    expect(byName('webhook ver').argumentos).toEqual([
      { nombre: 'id', descripcion: expect.any(String), obligatorio: true },
    ]);
    expect(
      byName('webhook listen').opciones.find((o: { nombre: string }) => o.nombre === 'route')
        .repetible,
    ).toBe(true);
    expect(byName('cobro listar').csv).toBe(true);
    expect(tree.opciones_globales.map((o: { nombre: string }) => o.nombre)).toContain('json');
    expect(tree.codigos_de_salida.map((e: { codigo: number }) => e.codigo)).toEqual(
      Object.values(EXIT),
    );
    for (const e of tree.codigos_de_salida) expect(e.significado, e.nombre).toMatch(/\S/);
  });

  it('without --json: one line per command with its summary', async () => {
    const r = await svc(['comandos']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(commands.length);
    expect(r.stdout).toMatch(/^mcp\s+servidor MCP/m);
  });
});
