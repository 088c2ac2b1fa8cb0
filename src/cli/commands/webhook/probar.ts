// svc webhook probar --forward-to URL: puts the merchant's receiver through the cases
// of src/webhooks/probe.ts, signed with the profile's signing secret, one line per
// case (what was expected, what came back) and a score. Exit 0 when every case met
// its expectation, 1 when any did not, 6 when the receiver cannot be reached at all.
// Meant for the merchant's own CI as much as for a laptop.
import { maskTarget } from '../../../api/address.js';
import { DEFAULTS } from '../../../defaults.js';
import { CliError, EXIT, UsageError } from '../../../errors.js';
import { VERSION } from '../../../version.js';
import { deliver, meets, probeCases, type Sent } from '../../../webhooks/probe.js';
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import { parseTimeoutSeconds, parseTolerance, parseUrl } from '../../parse.js';
import { resolveSecret } from '../../shared/webhook.js';
import type { probarOptions } from './index.js';
import { breakAtSpaces, narrowerThan } from '../../../output/io.js';

export async function run(
  ctx: Context,
  _args: string[],
  opts: OptionsOf<typeof probarOptions>,
): Promise<void> {
  if (opts.forwardTo === undefined)
    throw new UsageError('falta --forward-to URL: la dirección de tu receptor de notificaciones');
  const target = parseUrl(opts.forwardTo, '--forward-to', 'http');
  const tolerance = parseTolerance(opts.tolerance) ?? DEFAULTS.toleranceSeconds;
  const timeoutMs =
    parseTimeoutSeconds(opts.forwardTimeout) ?? DEFAULTS.forwardTimeoutSeconds * 1000;
  const secret = await resolveSecret(ctx, opts);
  const { io } = ctx;
  const url = new URL(target);
  const cases = probeCases(
    secret,
    Math.floor(Date.now() / 1000),
    tolerance || DEFAULTS.toleranceSeconds,
    `svc/${VERSION} (webhook probar)`,
  );

  const network = await ctx.network();
  const results: { caso: string; esperado: string; respuestas: Sent[]; ok: boolean }[] = [];
  for (const c of cases) {
    const answers: Sent[] = [];
    for (const d of c.deliveries) answers.push(await deliver(url, d, timeoutMs, network));
    if (results.length === 0 && answers[0]!.status === null) {
      throw new CliError(
        `no se pudo llegar a ${maskTarget(target)}: ${answers[0]!.error ?? 'sin respuesta'}`,
        {
          exit: EXIT.network,
          code: 'app_unreachable',
          hint: '¿está corriendo tu app? probá con curl la misma URL',
        },
      );
    }
    const ok = answers.every((a) => meets(c.expect, a));
    results.push({
      caso: c.name,
      esperado: c.expect === '2xx' ? '2xx' : 'rechazo (no 2xx)',
      respuestas: answers,
      ok,
    });
    if (!ctx.globals.json) {
      const got = answers
        .map((a) => (a.status === null ? `sin respuesta (${a.error})` : String(a.status)))
        .join(', ');
      const mark = ok ? io.c.green('✓') : io.c.red('✗');
      const said = `se esperaba ${c.expect === '2xx' ? '2xx' : 'un rechazo'}; respondió ${got}`;
      // Narrower than a whole line: the case, then what happened under it, broken between words.
      io.out(
        narrowerThan(io, 90)
          ? breakAtSpaces(`${mark} ${c.name}\n  ${said}`, io.columns, 2)
          : `${mark} ${c.name.padEnd(46)} ${said}`,
      );
    }
  }
  const passed = results.filter((r) => r.ok).length;
  if (ctx.globals.json) {
    io.outRaw(
      JSON.stringify(
        { destino: maskTarget(target), aprobados: passed, total: results.length, casos: results },
        null,
        2,
      ),
    );
  } else {
    io.out();
    io.out(
      passed === results.length
        ? io.c.green(
            `${passed}/${results.length}: tu receptor respondió como debe en todos los casos`,
          )
        : io.c.red(`${passed}/${results.length} casos como se esperaba`),
    );
  }
  if (passed !== results.length) {
    throw new CliError(
      `${results.length - passed} de ${results.length} casos no respondieron como se esperaba`,
      {
        exit: EXIT.refused,
        code: 'receiver_failed',
        hint: 'un receptor correcto verifica la firma sobre el cuerpo crudo, el timestamp y el evento, y responde 2xx a cada entrega válida (aunque se repita)',
      },
    );
  }
}
