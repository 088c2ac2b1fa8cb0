// Usage errors and help speak like the rest of svc: with --json every usage error,
// the parser's own included, is one JSON object on stderr and nothing on stdout
// (exit 2); help has no English from the parser; `svc help <comando>` works.
import { describe, expect, it } from 'vitest';
import { commands, groups } from '../../src/cli/registry.js';
import { svcSpawned } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';

const env = { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_API_KEY: 'svc_test_0000000000000000' };

describe('usage errors under --json', () => {
  it.each([
    [['cobro', 'listar', '--nope'], /opción desconocida '--nope'/],
    [['cobro', 'ver', '--referencia'], /le falta el valor/],
    [['nada'], /comando desconocido 'nada'/],
    [['cobro', 'listar', 'uno', 'dos'], /demasiados argumentos/],
    [['webhook', 'trigger'], /falta el argumento 'evento'|falta el evento/],
    [['cobro', 'crear', '--monto', '1,5', '--concepto', 'x'], /--monto/],
    [['devolver', '1'], /falta cuánto devolver/],
    [['sandbox', 'fallas', 'quitar'], /acción "quitar" no es válida/],
  ])('%j: one JSON object on stderr, stdout empty, exit 2', async (args, message) => {
    const r = await svc([...args, '--json'], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    const e = JSON.parse(lines[0]!);
    expect(e.error).toBe('usage');
    expect(e.message).toMatch(message);
  });

  it('the built binary too', async () => {
    const r = await svcSpawned(['cobro', 'listar', '--nope', '--json'], { env });
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stderr)).toEqual({
      error: 'usage',
      message: "opción desconocida '--nope'",
    });
  });
});

describe('help', () => {
  const names = ['', ...groups.map((g) => g.name), ...commands.map((c) => c.name)];
  it('of every command has no English words from the parser', async () => {
    for (const name of names) {
      const r = await svc([...(name ? name.split(' ') : []), '--help']);
      expect(r.exitCode, name).toBe(0);
      expect(r.stdout, name).not.toMatch(
        /\[options\]|\[command\]|Usage:|Options:|Commands:|Arguments:|display help|output the version|show help for command/,
      );
    }
  });

  it("svc help <comando> is the command's help", async () => {
    const r = await svc(['help', 'cobro']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Uso: svc cobro \[opciones\] \[comando\]/);
  });
});
