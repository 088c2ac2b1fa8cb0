// Payment requests in a batch against a real sandbox, svc in this process: a CSV as a
// spreadsheet saves it creates one request per row, each exactly once, under a run
// repeated and connections cut after the service processed the POST; a file with any
// bad row, or a referencia the service already holds, creates nothing. SIGKILL and two
// runs at once, which need svc as processes, are in lote.kill.test.ts.
import { createHash } from 'node:crypto';
import { execa } from 'execa';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultRequestPosts, jsonLines, requestsCsv, requestsPer } from '../../helpers/batches.js';
import { BIN, expectNoStack, ownFolders, tempDir } from '../../helpers/cli.js';
import { svc, svcAtTerminal } from '../../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';
import { lockPathsOf } from '../../../src/lock.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb?.stop());

interface Listed {
  id: number;
  codigo: string;
  url: string;
  monto: string;
  concepto: string;
  referencia: string | null;
  vencimiento: string;
  success_url: string | null;
  error_url: string | null;
  medios: { tarjeta: boolean; qr: boolean; transferencia: boolean };
}
const all = async () => (await sb.api('GET', '/v1/cobros')).body.data as Listed[];
const perReferencia = (refs: string[]) => requestsPer(sb, refs);
let batch = 0;
/** A fresh prefix, so each test's referencias are its own on the shared sandbox. */
const prefix = () => `cuota-${++batch}-${Math.random().toString(36).slice(2, 7)}`;

const csvOf = (n: number) => requestsCsv(n, prefix());

describe('svc cobro crear --lote', () => {
  it('creates every row of a spreadsheet’s CSV once, writes the links, and a second run creates nothing', async () => {
    const p = prefix();
    const dir = tempDir('svc-cobros-');
    const path = join(dir, 'cuotas.csv');
    // As LibreOffice and Excel save it where the decimal mark is a comma: BOM, `;`, CRLF, quoted text.
    writeFileSync(
      path,
      '\uFEFFConcepto;Monto;Referencia;Vencimiento;Medios\r\n' +
        `"Cuota diciembre; sala verde";1500,50;${p}-1;24/12/2026;\r\n` +
        `Cuota diciembre;1500;${p}-2;;qr transferencia\r\n` +
        `"Materiales ""arte""";800.00;${p}-3;+3d;tarjeta\r\n`,
    );
    const resultado = join(dir, 'links.csv');
    const r = await svc(['cobro', 'crear', '--lote', path, '--resultado', resultado], {
      env: sb.env,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^3 cobros creados, 0 rechazados; resultado en /m);
    const made = (await all())
      .filter((c) => c.referencia?.startsWith(`${p}-`))
      .sort((a, b) => a.id - b.id);
    expect(made.map((c) => [c.referencia, c.concepto, c.monto])).toEqual([
      [`${p}-1`, 'Cuota diciembre; sala verde', '1500.50'],
      [`${p}-2`, 'Cuota diciembre', '1500.00'],
      [`${p}-3`, 'Materiales "arte"', '800.00'],
    ]);
    expect(made[0]!.vencimiento).toMatch(/^2026-12-24 23:59:59$|^2026-12-24T23:59:59/);
    expect(made.map((c) => c.medios)).toEqual([
      { tarjeta: true, qr: true, transferencia: true },
      { tarjeta: false, qr: true, transferencia: true },
      { tarjeta: true, qr: false, transferencia: false },
    ]);
    // Piped: one row per line with its link, ready to send.
    for (const c of made)
      expect(r.stdout).toContain(`${c.referencia}\t${c.monto}\tcreado\t${c.codigo}\t${c.url}`);
    // The result file uses the batch's own separator (;), so the same spreadsheet opens it.
    const links = readFileSync(resultado, 'utf8').split('\r\n');
    expect(links[0]).toBe('fila;referencia;monto;estado;cobro_id;codigo;url;error');
    expect(links.slice(1, 4)).toEqual(
      made.map(
        (c, i) => `${i + 2};${c.referencia};${c.monto};creado;${c.id};${c.codigo};${c.url};`,
      ),
    );

    const again = await svc(['cobro', 'crear', '--lote', path, '--json'], { env: sb.env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(jsonLines(again.stdout).map((l) => l.estado)).toEqual([
      'ya_creado',
      'ya_creado',
      'ya_creado',
    ]);
    expect(await perReferencia(made.map((c) => c.referencia!))).toEqual([1, 1, 1]);
  });

  it('reads a CSV as LibreOffice Calc saves it in a Spanish locale: `,` between fields, amounts with a decimal comma quoted (with thousands and $ from a currency cell too), LF, no BOM', async () => {
    const p = prefix();
    const dir = tempDir('svc-cobros-');
    const path = join(dir, 'libreoffice.csv');
    writeFileSync(
      path,
      `concepto,monto,referencia\nInscripción,"1500,50",${p}-1\n"Cuota, marzo","800,00",${p}-2\nMatrícula,"$ 1.250,75",${p}-3\n`,
    );
    const r = await svc(['cobro', 'crear', '--lote', path, '--json'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const made = (await all())
      .filter((c) => c.referencia?.startsWith(`${p}-`))
      .sort((a, b) => a.id - b.id);
    expect(made.map((c) => [c.concepto, c.monto])).toEqual([
      ['Inscripción', '1500.50'],
      ['Cuota, marzo', '800.00'],
      ['Matrícula', '1250.75'],
    ]);
  });

  it.each([
    [
      'no referencia column',
      (p: string) => `concepto,monto\nCuota,10,${p}\n`.replace(`,${p}`, ''),
      /línea 1: faltan las columnas referencia/,
    ],
    [
      'a referencia twice',
      (p: string) => `concepto,monto,referencia\nCuota,10,${p}\nCuota,10,${p}\n`,
      /línea 3: la referencia "[^"]+" ya está en la línea 2/,
    ],
    [
      'an amount that is not one',
      (p: string) => `concepto,monto,referencia\nCuota,10,${p}-a\nCuota,1.500,50,${p}-b\n`,
      /línea 3: tiene otra cantidad de columnas/,
    ],
    [
      'a zero amount',
      (p: string) => `concepto,monto,referencia\nCuota,10,${p}-a\nCuota,0,${p}-b\n`,
      /línea 3: monto "0" es cero: el monto debe ser mayor que 0/,
    ],
    [
      'a medio svc does not know',
      (p: string) =>
        `concepto,monto,referencia,medios\nCuota,10,${p}-a,\nCuota,10,${p}-b,efectivo\n`,
      /línea 3: medios: "efectivo" no es un medio/,
    ],
    [
      'an empty concepto',
      (p: string) => `concepto,monto,referencia\nCuota,10,${p}-a\n,10,${p}-b\n`,
      /línea 3: concepto está vacío/,
    ],
    [
      'a past vencimiento',
      (p: string) =>
        `concepto,monto,referencia,vencimiento\nCuota,10,${p}-a,\nCuota,10,${p}-b,01/01/2020\n`,
      /línea 3: vencimiento /,
    ],
  ])('%s: exit 2 naming the line, nothing created', async (_name, content, message) => {
    const p = prefix();
    const dir = tempDir('svc-cobros-');
    writeFileSync(join(dir, 'x.csv'), content(p));
    const before = (await all()).length;
    const r = await svc(['cobro', 'crear', '--lote', join(dir, 'x.csv')], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expectNoStack(r.stderr);
    expect((await all()).length).toBe(before);
  });

  it('a referencia the service already holds: exit 2 naming it, nothing created', async () => {
    const { path, refs } = csvOf(3);
    const ids: number[] = [];
    for (const monto of ['5.00', '6.00'])
      ids.push(
        (await sb.api('POST', '/v1/cobros', { concepto: 'Otro', monto, referencia: refs[1] })).body
          .data.id,
      );
    const r = await svc(['cobro', 'crear', '--lote', path, '--json'], { env: sb.env });
    expect(r.exitCode).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^línea 3: ya hay un cobro con la referencia "${refs[1]}" \\(id (${ids[0]}, ${ids[1]}|${ids[1]}, ${ids[0]})\\)$`,
      ),
    );
    expect(JSON.parse(lines.at(-1)!)).toEqual({
      error: 'referencia_taken',
      message: `1 referencia ya existe en el servicio: no se creó ningún cobro de ${path}`,
    });
    const plain = await svc(['cobro', 'crear', '--lote', path], { env: sb.env });
    expect(plain.stderr.trim().split('\n').at(-1)).toBe(
      '→ cada cobro del lote necesita una referencia nueva (ej. 2026-12-familia-12)',
    );
    expect(await perReferencia(refs)).toEqual([0, 2, 0]);
  });

  it('--lote with one request’s flags, or --resultado without --lote: exit 2', async () => {
    const { path } = csvOf(1);
    const a = await svc(['cobro', 'crear', '--lote', path, '--monto', '10'], { env: sb.env });
    expect(a.exitCode).toBe(2);
    expect(a.stderr).toMatch(/--lote toma cada cobro de su fila/);
    const b = await svc(
      ['cobro', 'crear', '--concepto', 'x', '--monto', '10', '--resultado', 'r.csv'],
      { env: sb.env },
    );
    expect(b.exitCode).toBe(2);
    expect(b.stderr).toMatch(/--resultado va con --lote/);
  });

  it('a file edited after its run began is refused: its lines would name other rows', async () => {
    const { path, refs } = csvOf(2);
    expect((await svc(['cobro', 'crear', '--lote', path], { env: sb.env })).exitCode).toBe(0);
    writeFileSync(
      path,
      `concepto,monto,referencia\nCuota,10.00,${refs[1]}\nCuota,10.00,${refs[0]}-otra\n`,
    );
    const r = await svc(['cobro', 'crear', '--lote', path, '--json'], { env: sb.env });
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!)).toEqual({
      error: 'batch_changed',
      message: `${path} cambió desde que empezó su registro (${path}.registro.jsonl): las líneas ya no nombran las mismas filas; no se creó nada`,
    });
    expect(await perReferencia([...refs, `${refs[0]}-otra`])).toEqual([1, 1, 0]);
  });

  it('batch_changed names the ledger escaped in its line and in its hint: a path with an escape sequence moves no cursor', async () => {
    const dir = join(tempDir('svc-cobros-'), 'lotes\x1b[2J\x1b[31m');
    mkdirSync(dir);
    const path = join(dir, 'cuotas.csv');
    const p = prefix();
    writeFileSync(path, `concepto,monto,referencia\nCuota,10.00,${p}-1\n`);
    expect((await svc(['cobro', 'crear', '--lote', path], { env: sb.env })).exitCode).toBe(0);
    writeFileSync(path, `concepto,monto,referencia\nCuota,10.00,${p}-2\n`);
    const r = await svc(['cobro', 'crear', '--lote', path], { env: sb.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).not.toContain('\x1b');
    const hint = r.stderr.split('\n').find((l) => l.startsWith('→'))!;
    // The path alone is quoted and escaped, whole (it is what to delete), as in the error line; the sentence is not.
    expect(hint).toMatch(
      /^→ las filas que faltan, en un CSV nuevo; o, si no se creó ninguna, borrá "\/.*lotes\\u001b\[2J\\u001b\[31m\/cuotas\.csv\.registro\.jsonl"$/,
    );
  });

  it('connections cut after the service processed some POSTs: each row once, found by its referencia', async () => {
    const { path, refs } = csvOf(8);
    await faultRequestPosts(sb, { action: 'cut_after', count: 3 });
    const r = await svc(['cobro', 'crear', '--lote', path, '--json'], { env: sb.env });
    await sb.api('DELETE', '/_sandbox/fallas');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(jsonLines(r.stdout).map((l) => l.estado)).toEqual(refs.map(() => 'creado'));
    expect(await perReferencia(refs)).toEqual(refs.map(() => 1));
  });
  it('medios named with spaces, +, | or / in any case; success_url and error_url per row; the table when piped', async () => {
    const p = prefix();
    const dir = tempDir('svc-cobros-');
    const path = join(dir, 'medios.csv');
    writeFileSync(
      path,
      'concepto,monto,referencia,medios,success_url,error_url\n' +
        `Cuota,10,${p}-1,QR+Transferencia,https://tienda.example/ok,https://tienda.example/error\n` +
        `Cuota,10,${p}-2,tarjeta | qr,,\n` +
        `Cuota,10,${p}-3,TARJETA/transferencia,,\n` +
        `Cuota,10,${p}-4,  ,,\n` +
        `Cuota,10,${p}-5,qr,,\n` +
        `Cuota,10,${p}-6,transferencia,,\n`,
    );
    // Four at a time is the most --paralelo takes.
    const r = await svc(['cobro', 'crear', '--lote', path, '--paralelo', '4'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const made = (await all())
      .filter((c) => c.referencia?.startsWith(`${p}-`))
      .sort((a, b) => a.id - b.id);
    expect(made.map((c) => c.medios)).toEqual([
      { tarjeta: false, qr: true, transferencia: true },
      { tarjeta: true, qr: true, transferencia: false },
      { tarjeta: true, qr: false, transferencia: true },
      // A cell of spaces is an empty one: every medio.
      { tarjeta: true, qr: true, transferencia: true },
      { tarjeta: false, qr: true, transferencia: false },
      { tarjeta: false, qr: false, transferencia: true },
    ]);
    expect(made.map((c) => [c.success_url, c.error_url])).toEqual([
      ['https://tienda.example/ok', 'https://tienda.example/error'],
      ...Array.from({ length: 5 }, () => [null, null]),
    ]);
    // Piped, the table's rows: line, referencia, amount, state, code, link.
    expect(r.stdout.trim().split('\n')).toEqual(
      made.map((c, i) => `${i + 2}\t${c.referencia}\t10.00\tcreado\t${c.codigo}\t${c.url}`),
    );
    expect(r.stderr).toMatch(/^6 cobros creados, 0 rechazados$/m);
    expect(r.stderr).not.toContain('ya estaba');
    // Run again without --json: it says which rows it skips, and sends nothing.
    const again = await svc(['cobro', 'crear', '--lote', path], { env: sb.env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain(
      `6 filas ya estaban creadas (registro ${path}.registro.jsonl): se saltean`,
    );
    // The summary counts what this run did: nothing; the six are said apart.
    expect(again.stderr).toMatch(
      /^0 cobros creados, 0 rechazados; 6 filas ya estaban hechas de antes$/m,
    );
    expect(
      again.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[3]),
    ).toEqual(Array.from({ length: 6 }, () => 'ya_creado'));
    expect(await perReferencia(made.map((c) => c.referencia!))).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it.each([
    [
      '--paralelo over 4',
      'concepto,monto,referencia\nCuota,10,R\n',
      ['--paralelo', '5'],
      /^error: --paralelo: hasta 4 a la vez \(el servicio no es para ráfagas\)$/,
    ],
    [
      '--paralelo 0',
      'concepto,monto,referencia\nCuota,10,R\n',
      ['--paralelo', '0'],
      /^error: --paralelo/,
    ],
    [
      'a header and no rows',
      'concepto,monto,referencia\n',
      [],
      /^error: --lote .*x\.csv: no tiene filas$/,
    ],
    [
      'medios that leave none',
      'concepto,monto,referencia,medios\nCuota,10,R, + \n',
      [],
      /^línea 2: medios: ninguno; dejá al menos uno$/,
    ],
    [
      'a success_url that is not https',
      'concepto,monto,referencia,success_url\nCuota,10,R,http://tienda.example/ok\n',
      [],
      /^línea 2: success_url "http:\/\/tienda\.example\/ok" /,
    ],
    [
      'a success_url to this machine over http (the service takes https only)',
      'concepto,monto,referencia,success_url\nCuota,10,R,http://127.0.0.1:3000/ok\n',
      [],
      /^línea 2: success_url "http:\/\/127\.0\.0\.1:3000\/ok" /,
    ],
    [
      'an error_url to this machine over http',
      'concepto,monto,referencia,error_url\nCuota,10,R,http://localhost:3000/mal\n',
      [],
      /^línea 2: error_url "http:\/\/localhost:3000\/mal" /,
    ],
    [
      'a quote left open',
      'concepto,monto,referencia\n"Cuota,10,R\n',
      [],
      /^error: --lote .*x\.csv, línea 2: abre comillas que no cierra/,
    ],
    [
      'an error_url that is not https',
      'concepto,monto,referencia,error_url\nCuota,10,R,http://tienda.example/mal\n',
      [],
      /^línea 2: error_url "http:\/\/tienda\.example\/mal" /,
    ],
    [
      'an amount in words',
      'concepto,monto,referencia\nCuota,diez,R\n',
      [],
      /^línea 2: monto "diez" no es un monto decimal válido \(ej\. 1500 o 1500\.50\)$/,
    ],
    [
      'an amount that reads two ways',
      'concepto,monto,referencia\nCuota,1.200,R\n',
      [],
      /^línea 2: monto "1\.200" puede ser 1200\.00 o 1\.20: escribí uno de los dos así$/,
    ],
    [
      'a vencimiento that is not a date',
      'concepto,monto,referencia,vencimiento\nCuota,10,R,pronto\n',
      [],
      /^línea 2: vencimiento /,
    ],
  ])('%s: exit 2 before anything is sent', async (_name, content, flags, line) => {
    const dir = tempDir('svc-cobros-');
    const p = prefix();
    writeFileSync(join(dir, 'x.csv'), content.replace(/,R([,\n])/, `,${p}$1`));
    const before = (await all()).length;
    const r = await svc(['cobro', 'crear', '--lote', join(dir, 'x.csv'), ...flags], {
      env: sb.env,
    });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr.split('\n')).toContainEqual(expect.stringMatching(line));
    expectNoStack(r.stderr);
    expect((await all()).length).toBe(before);
  });

  it('two bad rows: each named on its own line, then one line naming both; nothing created', async () => {
    const dir = tempDir('svc-cobros-');
    const p = prefix();
    writeFileSync(
      join(dir, 'x.csv'),
      `concepto,monto,referencia\nCuota,10,${p}-1\nCuota,0,${p}-2\nCuota,10,${p}-3\n,10,${p}-4\n`,
    );
    const r = await svc(['cobro', 'crear', '--lote', join(dir, 'x.csv'), '--json'], {
      env: sb.env,
    });
    expect(r.exitCode).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines.slice(0, 2)).toEqual([
      'línea 3: monto "0" es cero: el monto debe ser mayor que 0',
      'línea 5: concepto está vacío',
    ]);
    expect(JSON.parse(lines[2]!)).toEqual({
      error: 'rows_invalid',
      message: `2 filas no se pueden crear (línea 3, línea 5): no se creó ningún cobro de ${join(dir, 'x.csv')}`,
    });
    expect(await perReferencia([1, 2, 3, 4].map((i) => `${p}-${i}`))).toEqual([0, 0, 0, 0]);
    // One bad row (a referencia left empty), without --json: its line, the count, and what to do.
    writeFileSync(join(dir, 'y.csv'), `concepto,monto,referencia\nCuota,10,${p}-1\nCuota,10,\n`);
    const one = await svc(['cobro', 'crear', '--lote', join(dir, 'y.csv')], { env: sb.env });
    expect(one.exitCode).toBe(2);
    expect(one.stderr.trim().split('\n')).toEqual([
      'línea 3: referencia está vacío',
      `error: 1 fila no se puede crear (línea 3): no se creó ningún cobro de ${join(dir, 'y.csv')}`,
      '→ corregí esas filas y volvé a correr el mismo comando',
    ]);
  });

  it('a row the service refuses: the others are created, exit 1 naming its line, and the result file says why', async () => {
    const { path, refs } = csvOf(3);
    // A refusal the seed names: any other answer to a write leaves the row in doubt.
    const why = { error: 'create_failed', message: 'el monto supera, "por ahora", el máximo' };
    await faultRequestPosts(sb, { action: 'respond', status: 400, body: why, count: 1 });
    const resultado = join(tempDir('svc-cobros-'), 'resultado.csv');
    const r = await svc(['cobro', 'crear', '--lote', path, '--resultado', resultado], {
      env: sb.env,
    });
    await sb.api('DELETE', '/_sandbox/fallas');
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^2 cobros creados, 1 rechazados; resultado en .*resultado\.csv$/m);
    expect(r.stderr.trim().split('\n').at(-1)).toBe('error: el servicio rechazó 1 fila: línea 2');
    expect(r.stdout).toContain(
      `2\t${refs[0]}\t10.00\trechazado\t\tcreate_failed: el monto supera, "por ahora", el máximo`,
    );
    const rows = readFileSync(resultado, 'utf8').split('\r\n');
    expect(rows[1]).toBe(
      `2,${refs[0]},10.00,rechazado,,,,"create_failed: el monto supera, ""por ahora"", el máximo"`,
    );
    expect(rows[2]).toMatch(new RegExp(`^3,${refs[1]},10\\.00,creado,\\d+,`));
    expect(await perReferencia(refs)).toEqual([0, 1, 1]);
    // The refusal is the row's outcome: a second run does not send it again.
    const again = await svc(['cobro', 'crear', '--lote', path, '--json'], { env: sb.env });
    expect(again.exitCode).toBe(1);
    expect(jsonLines(again.stdout).map((l) => l.estado)).toEqual([
      'rechazado',
      'ya_creado',
      'ya_creado',
    ]);
    expect(JSON.parse(again.stderr.trim().split('\n').at(-1)!)).toMatchObject({
      error: 'rows_refused',
    });
    expect(await perReferencia(refs)).toEqual([0, 1, 1]);
  });

  it('a row whose POST never reaches the service three times: exit 6 naming its line; the next run creates it once', async () => {
    const { path, refs } = csvOf(3);
    await faultRequestPosts(sb, { action: 'cut', count: 3 });
    const r = await svc(['cobro', 'crear', '--lote', path, '--json'], { env: sb.env });
    await sb.api('DELETE', '/_sandbox/fallas');
    expect(r.exitCode, r.stderr).toBe(6);
    // --json: one line per row as it is done, and on stderr only the error.
    expect(jsonLines(r.stdout)).toMatchObject([
      { fila: 2, estado: 'incierto', error: 'sin respuesta del servicio' },
      { fila: 3, estado: 'creado' },
      { fila: 4, estado: 'creado' },
    ]);
    expect(jsonLines(r.stderr)).toEqual([
      {
        error: 'outcome_unknown',
        message:
          '1 fila quedó sin saber si se creó (línea 2): corré el mismo comando de nuevo, que primero las busca por su referencia',
      },
    ]);
    expect(await perReferencia(refs)).toEqual([0, 1, 1]);
    const resultado = join(tempDir('svc-cobros-'), 'resultado.csv');
    const again = await svc(['cobro', 'crear', '--lote', path, '--resultado', resultado], {
      env: sb.env,
    });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain(
      `2 filas ya estaban creadas (registro ${path}.registro.jsonl): se saltean`,
    );
    expect(again.stderr).toMatch(
      /^1 cobro creado, 0 rechazados; 2 filas ya estaban hechas de antes; resultado en /m,
    );
    // The table and the result file are in line order.
    expect(
      again.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t').slice(0, 4).join(',')),
    ).toEqual([
      `2,${refs[0]},10.00,creado`,
      `3,${refs[1]},10.00,ya_creado`,
      `4,${refs[2]},10.00,ya_creado`,
    ]);
    expect(
      readFileSync(resultado, 'utf8')
        .split('\r\n')
        .slice(1, 4)
        .map((l) => l.split(',').slice(0, 4).join(',')),
    ).toEqual([
      `2,${refs[0]},10.00,creado`,
      `3,${refs[1]},10.00,ya_creado`,
      `4,${refs[2]},10.00,ya_creado`,
    ]);
    expect(await perReferencia(refs)).toEqual([1, 1, 1]);
  });

  it('with a live key and no terminal: refused without --yes before anything is sent; with --yes, each row created', async () => {
    const key = sb.api_key_live!;
    const live = { ...sb.env, SVC_API_KEY: key };
    const { path, refs } = csvOf(1);
    const liveRequests = async () =>
      ((await sb.api('GET', '/v1/cobros', undefined, key)).body.data as Listed[]).filter((c) =>
        refs.includes(c.referencia ?? ''),
      ).length;
    const r = await svc(['cobro', 'crear', '--lote', path], { env: live });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(
      /^error: modo live .*: crear los cobros de \/.*cobros\.csv necesita --yes para confirmar$/,
    );
    expect(await liveRequests()).toBe(0);
    const yes = await svc(['cobro', 'crear', '--lote', path, '--yes'], { env: live });
    expect(yes.exitCode, yes.stderr).toBe(0);
    expect(yes.stderr).toMatch(/^1 cobro creado, 0 rechazados$/m);
    expect(await liveRequests()).toBe(1);
  });
  it('a batch tried in test mode, then run with a live key: its ledger is refused (exit 2), nothing is taken for made; moved aside, every row is created live', async () => {
    const key = sb.api_key_live!;
    const live = { ...sb.env, SVC_API_KEY: key };
    const { path, refs } = csvOf(2);
    const liveRequests = async () =>
      ((await sb.api('GET', '/v1/cobros', undefined, key)).body.data as Listed[]).filter((c) =>
        refs.includes(c.referencia ?? ''),
      ).length;
    expect((await svc(['cobro', 'crear', '--lote', path], { env: sb.env })).exitCode).toBe(0);
    const ledger = `${path}.registro.jsonl`;
    const r = await svc(['cobro', 'crear', '--lote', path, '--yes', '--json'], { env: live });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!)).toEqual({
      error: 'batch_other_profile',
      message: `el registro ${ledger} es del perfil "default" en modo test y estás usando el perfil "default" en modo live: sus filas se crearon allí, no acá; no se creó nada`,
    });
    expect(await liveRequests()).toBe(0);
    // Another profile, in test mode too: refused the same way.
    const config = tempDir('svc-config-');
    writeFileSync(
      join(config, 'config.json'),
      JSON.stringify({
        current: 'otro',
        profiles: { otro: { base_url: sb.base_url, test_key: sb.api_key } },
      }),
      { mode: 0o600 },
    );
    const other = await svc(['cobro', 'crear', '--lote', path, '--json'], {
      env: { ...sb.env, SVC_CONFIG_DIR: config, SVC_PROFILE: 'otro' },
    });
    expect(other.exitCode, other.stderr).toBe(2);
    expect(JSON.parse(other.stderr.trim().split('\n').at(-1)!).message).toMatch(
      /es del perfil "default" en modo test y estás usando el perfil "otro" en modo test:/,
    );
    const plain = await svc(['cobro', 'crear', '--lote', path, '--yes'], { env: live });
    expect(plain.stderr.trim().split('\n').at(-1)).toBe(
      `→ para crear el lote del perfil "default" en modo live, mové ${ledger} a otra carpeta (guarda lo que se hizo antes) y volvé a correr el mismo comando`,
    );
    renameSync(ledger, `${ledger}.test`);
    const moved = await svc(['cobro', 'crear', '--lote', path, '--yes'], { env: live });
    expect(moved.exitCode, moved.stderr).toBe(0);
    expect(moved.stderr).toMatch(/^2 cobros creados, 0 rechazados$/m);
    expect(await liveRequests()).toBe(2);
    expect(await perReferencia(refs)).toEqual([1, 1]);
  });

  it('a row a killed run left with its intent, made on the service: found by its referencia, not taken for someone else’s, not sent again', async () => {
    const { path, refs } = csvOf(2);
    const digest = `sha256:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
    // As a run killed right after the service made row 2's request leaves its ledger.
    writeFileSync(
      `${path}.registro.jsonl`,
      `${JSON.stringify({ archivo: true, digest, lote: path })}\n${JSON.stringify({ fila: 2, intento: '2026-11-25T10:00:00.000Z' })}\n`,
    );
    const made = (
      await sb.api('POST', '/v1/cobros', { concepto: 'Cuota', monto: '10.00', referencia: refs[0] })
    ).body.data as Listed;
    const r = await svc(['cobro', 'crear', '--lote', path, '--json'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(jsonLines(r.stdout)).toMatchObject([
      { fila: 2, estado: 'creado', cobro_id: made.id },
      { fila: 3, estado: 'creado' },
    ]);
    expect(await perReferencia(refs)).toEqual([1, 1]);
  });
});

describe('svc cobro crear --lote: what a person sees, and what each run says it did', () => {
  const csvRows = (rows: [string, string][]) => {
    const path = join(tempDir('svc-cobros-'), 'cuotas.csv');
    writeFileSync(
      path,
      `concepto,monto,referencia\n${rows.map(([monto, ref]) => `Cuota,${monto},${ref}`).join('\n')}\n`,
    );
    return path;
  };

  it('at a terminal: one question with the count and total, a progress line counting what was created, the table with its headers and numbers to the right; a rerun asks nothing', async () => {
    const p = prefix();
    const path = csvRows([
      ['10.00', `${p}-1`],
      ['1500.00', `${p}-2`],
      ['10.00', `${p}-3`],
    ]);
    await faultRequestPosts(sb, {
      action: 'respond',
      status: 400,
      body: { error: 'create_failed', message: 'no' },
      count: 1,
    });
    const r = await svcAtTerminal(['cobro', 'crear', '--lote', path], sb.env, [
      [/¿Crear 3 cobros por 1520\.00\? \(s\/N\)/, 's\r'],
    ]);
    await sb.api('DELETE', '/_sandbox/fallas');
    expect(r.exitCode, r.screen).toBe(1);
    expect(r.screen).toContain('revisando las referencias…');
    // Of 1520.00, the refused row's 10.00 is not counted as created.
    expect(r.screen).toMatch(/\[#{20}\] 3\/3 filas · 1510\.00 de 1520\.00 · quedan ~\d+ s/);
    expect(r.screen).toMatch(/^LÍNEA {2}REFERENCIA +MONTO {2}ESTADO +CÓDIGO +LINK DE PAGO/m);
    expect(r.screen).toMatch(
      new RegExp(`^ {4}2 {2}${p}-1 + {2}10\\.00 {2}rechazado +create_failed: no`, 'm'),
    );
    expect(r.screen).toMatch(
      new RegExp(`^ {4}3 {2}${p}-2 + 1500\\.00 {2}creado {5}[A-Z0-9]+ +http`, 'm'),
    );
    expect(r.screen).toMatch(/^2 cobros creados, 1 rechazados$/m);
    const again = await svcAtTerminal(['cobro', 'crear', '--lote', path], sb.env, []);
    expect(again.exitCode, again.screen).toBe(1);
    expect(again.screen).not.toContain('¿Crear');
    // What this run did: nothing; the refusal is an earlier run's.
    expect(again.screen).toMatch(
      /^0 cobros creados, 0 rechazados; 3 filas ya estaban hechas de antes$/m,
    );
  });

  it('live mode at a terminal: the total is typed to confirm; in test mode, n at the question creates nothing', async () => {
    const p = prefix();
    const path = csvRows([
      ['12.50', `${p}-1`],
      ['10.00', `${p}-2`],
    ]);
    const r = await svcAtTerminal(
      ['cobro', 'crear', '--lote', path],
      { ...sb.env, SVC_API_KEY: sb.api_key_live! },
      [[/MODO LIVE: para crear 2 cobros por 22\.50 escribí el total \(22\.50\):/, '22,50\r']],
    );
    expect(r.exitCode, r.screen).toBe(0);
    expect(r.screen).toMatch(/^2 cobros creados, 0 rechazados$/m);
    const one = csvRows([['10.00', `${p}-3`]]);
    const no = await svcAtTerminal(['cobro', 'crear', '--lote', one], sb.env, [
      [/¿Crear 1 cobro por 10\.00\? \(s\/N\)/, 'n\r'],
    ]);
    expect(no.exitCode, no.screen).toBe(8);
    expect(await perReferencia([`${p}-3`])).toEqual([0]);
  });

  it('each row is sent with its own fields only: none added, none of another row', async () => {
    // Between svc and the sandbox, a proxy that keeps what each POST of a request carried.
    const bodies: Record<string, unknown>[] = [];
    const upstream = new URL(sb.base_url);
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (req.method === 'POST' && req.url === '/v1/cobros')
          bodies.push(JSON.parse(String(body)));
        const out = request(
          {
            host: upstream.hostname,
            port: upstream.port,
            method: req.method,
            path: req.url,
            headers: req.headers,
          },
          (up) => {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          },
        );
        out.end(body);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const p = prefix();
      const path = join(tempDir('svc-cobros-'), 'cuotas.csv');
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      writeFileSync(
        path,
        `concepto,monto,referencia,medios\nCuota,10.00,${p}-1,\nCuota,20.00,${p}-2,qr\n`,
      );
      const ok = await svc(['cobro', 'crear', '--lote', path], {
        env: { ...sb.env, SVC_BASE_URL: url },
      });
      expect(ok.exitCode, ok.stderr).toBe(0);
      expect(bodies).toEqual([
        { concepto: 'Cuota', monto: '10.00', referencia: `${p}-1` },
        {
          concepto: 'Cuota',
          monto: '20.00',
          referencia: `${p}-2`,
          tarjeta: false,
          transferencia: false,
        },
      ]);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('rows in doubt and rows refused are counted in the words of their number; a rerun names what earlier runs did', async () => {
    const p = prefix();
    const path = csvRows([
      ['10.00', `${p}-1`],
      ['10.00', `${p}-2`],
      ['10.00', `${p}-3`],
    ]);
    // Rows 2 and 3 are cut three times each, before the service sees them.
    await faultRequestPosts(sb, { action: 'cut', count: 6 });
    const r = await svc(['cobro', 'crear', '--lote', path], { env: sb.env });
    await sb.api('DELETE', '/_sandbox/fallas');
    expect(r.exitCode, r.stderr).toBe(6);
    expect(r.stderr).toMatch(/^1 cobro creado, 0 rechazados, 2 sin saber$/m);
    expect(r.stderr).toContain(
      'error: 2 filas quedaron sin saber si se creó (línea 2, línea 3): corré el mismo comando de nuevo, que primero las busca por su referencia',
    );
    const again = await svc(['cobro', 'crear', '--lote', path], { env: sb.env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain(
      `1 fila ya estaba creada (registro ${path}.registro.jsonl): se saltean`,
    );
    expect(again.stderr).toMatch(
      /^2 cobros creados, 0 rechazados; 1 fila ya estaba hecha de antes$/m,
    );
    expect(await perReferencia([`${p}-1`, `${p}-2`, `${p}-3`])).toEqual([1, 1, 1]);

    const refused = csvRows([
      ['10.00', `${p}-4`],
      ['10.00', `${p}-5`],
    ]);
    await faultRequestPosts(sb, {
      action: 'respond',
      status: 400,
      body: { error: 'create_failed', message: 'no' },
      count: 2,
    });
    const two = await svc(['cobro', 'crear', '--lote', refused], { env: sb.env });
    await sb.api('DELETE', '/_sandbox/fallas');
    expect(two.exitCode, two.stderr).toBe(1);
    expect(two.stderr.trim().split('\n').at(-1)).toBe(
      'error: el servicio rechazó 2 filas: línea 2, línea 3',
    );
    const taken = await svc(
      [
        'cobro',
        'crear',
        '--lote',
        csvRows([
          ['10.00', `${p}-1`],
          ['10.00', `${p}-2`],
        ]),
      ],
      {
        env: sb.env,
      },
    );
    expect(taken.exitCode).toBe(2);
    expect(taken.stderr).toContain(
      'error: 2 referencias ya existen en el servicio: no se creó ningún cobro de',
    );
  });

  it('a row whose reply was lost is looked for by its own referencia only: not one that contains it, differs in case, or a request without one', async () => {
    const p = prefix();
    const mine = `${p}-1`;
    // What a search for the row's referencia also finds on the service.
    for (const body of [
      { concepto: 'Cuota', monto: '10.00', referencia: `${p}-10` },
      { concepto: 'Cuota', monto: '10.00', referencia: mine.toUpperCase() },
      { concepto: `Cuota ${mine}`, monto: '10.00' },
    ])
      expect((await sb.api('POST', '/v1/cobros', body)).status).toBe(201);
    const path = csvRows([['10.00', mine]]);
    // Its first POST never reaches the service: the next round looks for it, finds none of those, sends it.
    await faultRequestPosts(sb, { action: 'cut', count: 1 });
    const r = await svc(['cobro', 'crear', '--lote', path, '--json'], { env: sb.env });
    await sb.api('DELETE', '/_sandbox/fallas');
    expect(r.exitCode, r.stderr).toBe(0);
    const [row] = jsonLines(r.stdout);
    const made = (await all()).filter((c) => c.referencia === mine);
    expect(made).toHaveLength(1);
    expect(row).toMatchObject({ estado: 'creado', cobro_id: made[0]!.id });
  });

  it('a batch whose rows are all done reads nothing from the service', async () => {
    const { path } = csvOf(2);
    expect((await svc(['cobro', 'crear', '--lote', path], { env: sb.env })).exitCode).toBe(0);
    await sb.api('POST', '/_sandbox/fallas', {
      method: 'GET',
      path: '/v1/cobros',
      action: 'respond',
      status: 500,
      body: { error: 'internal', message: 'caído' },
      count: 5,
    });
    const again = await svc(['cobro', 'crear', '--lote', path], { env: sb.env });
    await sb.api('DELETE', '/_sandbox/fallas');
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      /^0 cobros creados, 0 rechazados; 2 filas ya estaban hechas de antes$/m,
    );
  });

  it('a ledger line the batch did not write (another estado) is no outcome: the row is looked for and created', async () => {
    const { path, refs } = csvOf(1);
    const digest = `sha256:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
    writeFileSync(
      `${path}.registro.jsonl`,
      [
        { archivo: true, digest, lote: path },
        { fila: 2, intento: '2026-11-25T10:00:00.000Z' },
        { fila: 2, estado: 'pendiente' },
      ]
        .map((l) => `${JSON.stringify(l)}\n`)
        .join(''),
    );
    const r = await svc(['cobro', 'crear', '--lote', path, '--json'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(jsonLines(r.stdout).map((l) => l.estado)).toEqual(['creado']);
    expect(await perReferencia(refs)).toEqual([1]);
  });

  it('a copy of the file being run under another name waits for it, and says so', async () => {
    const { path, refs } = csvOf(1);
    const digest = `sha256:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
    // The lock a run of a copy holds: by the content's digest.
    const held = lockPathsOf(path, 'lote', digest)[1]!;
    const holder = execa(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    writeFileSync(
      held,
      JSON.stringify({ pid: holder.pid, host: hostname(), desde: new Date().toISOString() }),
    );
    const run = svc(['cobro', 'crear', '--lote', path], { env: sb.env });
    await new Promise((r) => setTimeout(r, 1500));
    expect(await perReferencia(refs)).toEqual([0]);
    holder.kill('SIGKILL');
    await holder.catch(() => undefined);
    const r = await run;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `otro proceso (pid ${holder.pid}) está creando los cobros de ${path}: esperando a que termine…`,
    );
    expect(await perReferencia(refs)).toEqual([1]);
  });

  it('a lock whose holder cannot be read (one being written) is waited for, said without a pid', async () => {
    const { path, refs } = csvOf(1);
    const digest = `sha256:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
    const held = lockPathsOf(path, 'lote', digest)[1]!;
    // What another svc's lock is for the instant between creating it and writing its holder.
    writeFileSync(held, '');
    // A process, so its stderr is seen as it is written: the lock goes once the wait is said.
    const run = execa('node', [BIN, 'cobro', 'crear', '--lote', path], {
      env: {
        PATH: process.env.PATH,
        ...ownFolders(sb.env),
        NO_COLOR: '1',
        SVC_KEYRING: 'off',
        ...sb.env,
      },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    let said = '';
    await new Promise<void>((resolve) => {
      run.stderr!.on('data', (d: Buffer) => {
        said += d.toString();
        if (said.includes('esperando a que termine')) resolve();
      });
      void run.finally(() => resolve());
    });
    rmSync(held, { force: true });
    const r = await run;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stderr).toContain(
      `otro proceso está creando los cobros de ${path}: esperando a que termine…`,
    );
    expect(await perReferencia(refs)).toEqual([1]);
  });
});
