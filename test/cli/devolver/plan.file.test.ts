// What `svc devolver --aplicar FILE` accepts as a refund plan, field by field, in this
// process and with no service: a file that is not a plan as svc writes it is refused
// before anything is locked or read from the service (exit 2, one line naming the
// field), a plan from a newer svc says so, an edited one is refused (exit 1), and plans
// written by this svc and by the one before it (version 1, before who and why were
// recorded) are still read. Also who svc says prepared or applied a plan.
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Cobro, Devolucion } from '../../../src/api/schemas.js';
import {
  digestOf,
  makePlan,
  osUser,
  readPlan,
  type Plan,
  type PlanBody,
} from '../../../src/cli/commands/devolver/plan.js';
import { tempDir } from '../../helpers/cli.js';
import { expectOneErrorLine } from '../../helpers/fixtures.js';
import { svc } from '../../helpers/inproc.js';
import { skipBecause } from '../../helpers/skips.js';

const ON_WINDOWS = skipBecause(
  import.meta.url,
  process.platform === 'win32' && 'not on Windows (no POSIX modes or signals there)',
);

// Written by svc (the digests are as it wrote them, not recomputed here: a change to
// what the digest covers shows as a plan of its own refused).
const V2 = {
  version: 2,
  cobro: {
    id: 42,
    codigo: 'CB-42',
    estado: 'PAGADA',
    monto_cobrado: '1500.00',
    devuelto: '250.00',
    devoluciones: [3, 9],
  },
  monto: '200.00',
  transaccion_id: null,
  perfil: 'default',
  modo: 'test',
  creado: '2026-11-20T14:03:00.000Z',
  preparado_por: 'marta',
  motivo: 'llegó roto',
  digest: 'sha256:3d9c37a6cd9b346fb496fb351e3bbbe98577b575db3cc088c3338ff2c7ac066f',
  aplicado: null,
};
const V1 = {
  version: 1,
  cobro: {
    id: 42,
    codigo: 'CB-42',
    estado: 'PAGADA',
    monto_cobrado: '1500.00',
    devuelto: '0.00',
    devoluciones: [],
  },
  monto: '200.00',
  transaccion_id: 7,
  perfil: 'default',
  modo: 'live',
  creado: '2026-03-02T09:00:00.000Z',
  digest: 'sha256:a976e069659750b78c222a117887845f8d2a1855a93b836b290a68ffa5be0797',
  aplicado: null,
};

type Json = Record<string, unknown>;
const clone = <T>(v: T): T => structuredClone(v);

function write(text: string, name = 'plan.json'): string {
  const file = join(tempDir('svc-planfile-'), name);
  writeFileSync(file, text);
  return file;
}

/** V2 (or `base`) with `edit` applied to a copy, the digest recomputed: only the shape is wrong. */
function planWith(edit: (p: Json, c: Json) => void, base: Json = V2): Json {
  const p = clone(base);
  edit(p, p.cobro as Json);
  return p;
}
const without = (key: string) => (p: Json) => {
  delete p[key];
};
const withoutCobro = (key: string) => (_: Json, c: Json) => {
  delete c[key];
};
const set = (key: string, value: unknown) => (p: Json) => {
  p[key] = value;
};
const setCobro = (key: string, value: unknown) => (_: Json, c: Json) => {
  c[key] = value;
};

const APPLIED = {
  at: '2026-11-21T10:00:00.000Z',
  devolucion_id: 77,
  perfil: 'default',
  aplicado_por: 'juan',
};

describe('devolver --aplicar: a file that is not a plan as svc writes it', () => {
  // [what, the file's text, the reason the line gives]
  const cases: [string, string, string][] = [
    ['JSON null', 'null', 'no es un objeto JSON'],
    ['a JSON array', '[1]', 'no es un objeto JSON'],
    ['no version', JSON.stringify(planWith(without('version'))), 'falta el campo version'],
    [
      'version as text',
      JSON.stringify(planWith(set('version', '2'))),
      'el campo version no es válido',
    ],
    ['version 0', JSON.stringify(planWith(set('version', 0))), 'el campo version no es válido'],
    ['version 1.5', JSON.stringify(planWith(set('version', 1.5))), 'el campo version no es válido'],
    ['no cobro', JSON.stringify(planWith(without('cobro'))), 'falta el campo cobro'],
    ['cobro null', JSON.stringify(planWith(set('cobro', null))), 'el campo cobro no es válido'],
    ['cobro a list', JSON.stringify(planWith(set('cobro', [42]))), 'el campo cobro no es válido'],
    [
      'version 2 without preparado_por',
      JSON.stringify(planWith(without('preparado_por'))),
      'falta el campo preparado_por',
    ],
    [
      'preparado_por a number',
      JSON.stringify(planWith(set('preparado_por', 501))),
      'el campo preparado_por no es válido',
    ],
    [
      'version 2 without motivo',
      JSON.stringify(planWith(without('motivo'))),
      'falta el campo motivo',
    ],
    ['motivo a number', JSON.stringify(planWith(set('motivo', 5))), 'el campo motivo no es válido'],
    ['no cobro.id', JSON.stringify(planWith(withoutCobro('id'))), 'falta el campo cobro.id'],
    ['cobro.id 0', JSON.stringify(planWith(setCobro('id', 0))), 'el campo cobro.id no es válido'],
    [
      'cobro.id negative',
      JSON.stringify(planWith(setCobro('id', -42))),
      'el campo cobro.id no es válido',
    ],
    [
      'cobro.id 4.5',
      JSON.stringify(planWith(setCobro('id', 4.5))),
      'el campo cobro.id no es válido',
    ],
    [
      'cobro.id as text',
      JSON.stringify(planWith(setCobro('id', '42'))),
      'el campo cobro.id no es válido',
    ],
    [
      'cobro.id past 2^53',
      JSON.stringify(planWith(setCobro('id', 2 ** 53))),
      'el campo cobro.id no es válido',
    ],
    [
      'no cobro.codigo',
      JSON.stringify(planWith(withoutCobro('codigo'))),
      'falta el campo cobro.codigo',
    ],
    [
      'cobro.estado a number',
      JSON.stringify(planWith(setCobro('estado', 3))),
      'el campo cobro.estado no es válido',
    ],
    [
      'cobro.monto_cobrado a number',
      JSON.stringify(planWith(setCobro('monto_cobrado', 1500))),
      'el campo cobro.monto_cobrado no es válido',
    ],
    [
      'cobro.monto_cobrado not an amount',
      JSON.stringify(planWith(setCobro('monto_cobrado', '1.500,00'))),
      'el campo cobro.monto_cobrado no es válido',
    ],
    [
      'cobro.devuelto a number',
      JSON.stringify(planWith(setCobro('devuelto', 250))),
      'el campo cobro.devuelto no es válido',
    ],
    [
      'cobro.devuelto not an amount',
      JSON.stringify(planWith(setCobro('devuelto', 'nada'))),
      'el campo cobro.devuelto no es válido',
    ],
    [
      'no cobro.devoluciones',
      JSON.stringify(planWith(withoutCobro('devoluciones'))),
      'falta el campo cobro.devoluciones',
    ],
    [
      'cobro.devoluciones not a list',
      JSON.stringify(planWith(setCobro('devoluciones', '3,9'))),
      'el campo cobro.devoluciones no es válido',
    ],
    [
      'cobro.devoluciones holding 0',
      JSON.stringify(planWith(setCobro('devoluciones', [3, 0]))),
      'el campo cobro.devoluciones no es válido',
    ],
    ['no monto', JSON.stringify(planWith(without('monto'))), 'falta el campo monto'],
    ['monto a number', JSON.stringify(planWith(set('monto', 200))), 'el campo monto no es válido'],
    [
      'monto not an amount',
      JSON.stringify(planWith(set('monto', '2OO'))),
      'el campo monto no es válido',
    ],
    ['monto 0.00', JSON.stringify(planWith(set('monto', '0.00'))), 'el campo monto no es válido'],
    [
      'monto negative',
      JSON.stringify(planWith(set('monto', '-200.00'))),
      'el campo monto no es válido',
    ],
    [
      'no transaccion_id',
      JSON.stringify(planWith(without('transaccion_id'))),
      'falta el campo transaccion_id',
    ],
    [
      'transaccion_id 0',
      JSON.stringify(planWith(set('transaccion_id', 0))),
      'el campo transaccion_id no es válido',
    ],
    ['no perfil', JSON.stringify(planWith(without('perfil'))), 'falta el campo perfil'],
    ['perfil a number', JSON.stringify(planWith(set('perfil', 1))), 'el campo perfil no es válido'],
    ['no modo', JSON.stringify(planWith(without('modo'))), 'falta el campo modo'],
    ['modo prod', JSON.stringify(planWith(set('modo', 'prod'))), 'el campo modo no es válido'],
    [
      'creado a number',
      JSON.stringify(planWith(set('creado', 1763647380000))),
      'el campo creado no es válido',
    ],
    ['no digest', JSON.stringify(planWith(without('digest'))), 'falta el campo digest'],
    ['digest a number', JSON.stringify(planWith(set('digest', 0))), 'el campo digest no es válido'],
    ['no aplicado', JSON.stringify(planWith(without('aplicado'))), 'falta el campo aplicado'],
    [
      'aplicado true',
      JSON.stringify(planWith(set('aplicado', true))),
      'el campo aplicado no es válido',
    ],
    [
      'aplicado a list',
      JSON.stringify(planWith(set('aplicado', [APPLIED]))),
      'el campo aplicado no es válido',
    ],
    [
      'aplicado without at',
      JSON.stringify(planWith(set('aplicado', { ...APPLIED, at: undefined }))),
      'el campo aplicado no es válido',
    ],
    [
      'aplicado without its refund',
      JSON.stringify(planWith(set('aplicado', { ...APPLIED, devolucion_id: undefined }))),
      'el campo aplicado no es válido',
    ],
    [
      'aplicado_por a number',
      JSON.stringify(planWith(set('aplicado', { ...APPLIED, aplicado_por: 7 }))),
      'el campo aplicado no es válido',
    ],
    // Version 1 has no who and why; every other field is checked as in version 2.
    [
      'version 1 without cobro.estado',
      JSON.stringify(planWith(withoutCobro('estado'), V1)),
      'falta el campo cobro.estado',
    ],
    [
      'version 1 with transaccion_id as text',
      JSON.stringify(planWith(set('transaccion_id', '7'), V1)),
      'el campo transaccion_id no es válido',
    ],
  ];
  it.each(cases)(
    '%s: exit 2, the field named, nothing read from the service',
    async (_what, text, reason) => {
      const file = write(text);
      const r = await svc(['devolver', '--aplicar', file, '--yes']);
      const line = expectOneErrorLine(r, 2, /no es un plan de devolución de svc/, _what);
      expect(line).toBe(
        `error: --aplicar "${file}": no es un plan de devolución de svc (${reason})`,
      );
    },
  );

  it('a plan from a newer svc says so, and what to do: exit 2', async () => {
    const file = write(JSON.stringify(planWith(set('version', 3))));
    const r = await svc(['devolver', '--aplicar', file, '--json']);
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stderr)).toEqual({
      error: 'usage',
      message: `--aplicar "${file}": es un plan de versión 3, de una svc más nueva que esta`,
    });
    const plain = await svc(['devolver', '--aplicar', file]);
    expectOneErrorLine(
      plain,
      2,
      /es un plan de versión 3, de una svc más nueva que esta$/,
      'version 3',
    );
    expect(plain.stderr).toContain(
      '→ actualizá svc para aplicarlo, o prepará el plan de nuevo con esta',
    );
  });

  it('an edited plan: exit 1 plan_refused, naming how to make a new one', async () => {
    const file = write(JSON.stringify({ ...V2, monto: '900.00' }));
    const r = await svc(['devolver', '--aplicar', file]);
    expectOneErrorLine(
      r,
      1,
      /fue modificado después de escrito \(su digest no coincide\): no se aplica$/,
      'edited',
    );
    expect(r.stderr).toContain('→ prepará uno nuevo con svc devolver 42 --monto … --plan ARCHIVO');
    expect(JSON.parse((await svc(['devolver', '--aplicar', file, '--json'])).stderr)).toMatchObject(
      { error: 'plan_refused' },
    );
  });

  it('a plan marked applied: exit 2 already_applied, naming the refund and who applied it, before any request', async () => {
    const file = write(JSON.stringify({ ...V2, aplicado: APPLIED }));
    const r = await svc(['devolver', '--aplicar', file, '--yes']);
    expectOneErrorLine(
      r,
      2,
      /^error: el plan ya se aplicó el .* por juan \(devolución 77\): no se devuelve dos veces$/,
      'applied',
    );
    expect(JSON.parse((await svc(['devolver', '--aplicar', file, '--json'])).stderr)).toMatchObject(
      { error: 'already_applied' },
    );
  });

  it('what is not a plan file at all: a missing path, a symbolic link, a folder, a path through a file, a file over 64 KiB, text that is not JSON', async () => {
    const dir = tempDir('svc-planfile-');
    const plan = join(dir, 'plan.json');
    writeFileSync(plan, JSON.stringify(V2));
    symlinkSync(plan, join(dir, 'enlace.json'));
    mkdirSync(join(dir, 'carpeta'));
    writeFileSync(join(dir, 'grande.json'), ' '.repeat(64 * 1024 + 1));
    writeFileSync(join(dir, 'texto.json'), 'version: 2');
    const cases: [string, RegExp][] = [
      ['falta.json', /: no existe$/],
      ['enlace.json', /: es un enlace simbólico$/],
      ['carpeta', /: no es un archivo$/],
      ['plan.json/x', /: ENOTDIR: not a directory/],
      ['grande.json', /: 65537 bytes no es un plan de devolución$/],
      ['texto.json', /: no es JSON \(un plan lo escribe svc devolver … --plan\)$/],
    ];
    for (const [name, reason] of cases) {
      const path = join(dir, name);
      const r = await svc(['devolver', '--aplicar', path, '--yes']);
      const line = expectOneErrorLine(r, 2, reason, name);
      expect(line.startsWith(`error: --aplicar "${path}": `), line).toBe(true);
    }
  });

  it.skipIf(ON_WINDOWS)('a named pipe is refused at once, not waited on', async () => {
    const fifo = join(tempDir('svc-planfile-'), 'tubo');
    execFileSync('mkfifo', [fifo]);
    expectOneErrorLine(
      await svc(['devolver', '--aplicar', fifo]),
      2,
      /: no es un archivo$/,
      'fifo',
    );
  });
});

describe('readPlan: the plans svc wrote are read back', () => {
  const read = (p: Json) => readPlan(write(JSON.stringify(p, null, 2)));
  /** A body of this shape with its digest as svc computes it. */
  const sealed = (p: Json): Json => {
    const { digest: _d, aplicado: _a, ...body } = p;
    return { ...body, digest: digestOf(body as unknown as PlanBody), aplicado: p.aplicado };
  };

  it('a version 2 plan and a version 1 plan (before who and why were recorded), each with the digest svc wrote', () => {
    expect(read(V2)).toEqual(V2);
    expect(read(V1)).toEqual(V1);
    // Who and why are under a version 2 digest: a plan whose motivo was changed is refused.
    expect(() => read({ ...V2, motivo: 'otro' })).toThrow(/digest no coincide/);
    expect(() => read({ ...V2, preparado_por: 'otro' })).toThrow(/digest no coincide/);
  });

  it('every value a plan may hold: no motivo, a transaction, live mode, applied with or without who applied it', () => {
    for (const p of [
      sealed({ ...V2, motivo: null }),
      sealed({ ...V2, transaccion_id: 12, modo: 'live' }),
      sealed({ ...V2, aplicado: APPLIED }),
      sealed({ ...V2, aplicado: { ...APPLIED, aplicado_por: undefined } }),
      sealed({ ...V2, cobro: { ...V2.cobro, devoluciones: [1] } }),
    ]) {
      expect(read(p)).toEqual(JSON.parse(JSON.stringify(p)));
    }
  });

  it('a plan of exactly 64 KiB is read whole; the file is closed after reading', () => {
    const text = JSON.stringify(V2);
    const file = write(text + ' '.repeat(64 * 1024 - Buffer.byteLength(text)));
    const fds = () => readdirSync('/proc/self/fd').length;
    const before = process.platform === 'linux' ? fds() : 0;
    expect(readPlan(file)).toEqual(V2);
    if (process.platform === 'linux') expect(fds()).toBe(before);
  });
});

describe('makePlan', () => {
  it('records what was refunded so far: the sum, and the refunds by id', () => {
    const cobro = {
      id: 42,
      codigo: 'CB-42',
      estado: 'DEVUELTA_PARCIALMENTE',
      monto_cobrado: '1500.00',
    } as Cobro;
    const mine = [
      { id: 9, monto: '100.10' },
      { id: 3, monto: '50.25' },
      { id: 12, monto: '0.05' },
      { id: 5, monto: '10.00' },
    ] as Devolucion[];
    const plan: Plan = makePlan(
      cobro,
      mine,
      '200.00',
      7,
      'default',
      'test',
      { preparado_por: 'marta', motivo: null },
      new Date('2026-11-20T14:03:00Z'),
    );
    expect(plan.cobro).toEqual({
      id: 42,
      codigo: 'CB-42',
      estado: 'DEVUELTA_PARCIALMENTE',
      monto_cobrado: '1500.00',
      devuelto: '160.40',
      devoluciones: [3, 5, 9, 12],
    });
    expect(plan).toMatchObject({
      version: 2,
      monto: '200.00',
      transaccion_id: 7,
      creado: '2026-11-20T14:03:00.000Z',
      preparado_por: 'marta',
      motivo: null,
      aplicado: null,
    });
  });
});

describe('osUser: who svc says prepared or applied a plan', () => {
  afterEach(() => vi.restoreAllMocks());
  const noPasswdEntry = () =>
    vi.spyOn(os, 'userInfo').mockImplementation(() => {
      throw new Error('ENOENT: no such file or directory, uv_os_get_passwd');
    });

  it("the OS account's name, whatever the environment says", () => {
    vi.spyOn(os, 'userInfo').mockReturnValue({ username: 'marta' } as os.UserInfo<string>);
    expect(osUser({ USER: 'otro', LOGNAME: 'otro' })).toBe('marta');
  });

  it('with no name for the account: USER, then USERNAME, then LOGNAME, then the uid', () => {
    vi.spyOn(os, 'userInfo').mockReturnValue({ username: '' } as os.UserInfo<string>);
    expect(osUser({ USER: 'juan' })).toBe('juan');
    noPasswdEntry();
    expect(osUser({ USER: 'juan', USERNAME: 'ana', LOGNAME: 'luis' })).toBe('juan');
    expect(osUser({ USER: '', USERNAME: 'ana', LOGNAME: 'luis' })).toBe('ana');
    expect(osUser({ LOGNAME: 'luis' })).toBe('luis');
    vi.spyOn(process, 'getuid').mockReturnValue(1000);
    expect(osUser({})).toBe('uid 1000');
  });

  it('where there are no uids (Windows): "uid ?"', () => {
    noPasswdEntry();
    const getuid = process.getuid;
    Object.defineProperty(process, 'getuid', {
      value: undefined,
      configurable: true,
      writable: true,
    });
    try {
      expect(osUser({})).toBe('uid ?');
    } finally {
      Object.defineProperty(process, 'getuid', {
        value: getuid,
        configurable: true,
        writable: true,
      });
    }
  });
});
