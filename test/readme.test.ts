// The documentation never drifts: every line of the ```sh blocks of the tour (the files of
// TOUR, read one after another as one text) is run, in order, in one temp folder, against a
// fresh sandbox, with `svc` being the built CLI. A line may
// end with `# exit N` when it shows a refusal on purpose. Every ```text block of
// sample output is compared with what svc prints: each `$ command` in it is the
// output of the same line of the tour (or, when the tour has no such line, of the
// command run at that point), with ids of events, codes, keys, dates, times and
// durations normalised, spaces between columns collapsed, and a line `…` standing for
// any lines. A block that shows no output of the tour (a long-running command, a file's
// content) says why on the line before it: <!-- readme: sin comparar (why) -->.
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, expectNoStack, tempDir } from './helpers/cli.js';
import { svc } from './helpers/inproc.js';
import { startSandbox, type Sandbox } from './helpers/sandbox.js';

type Step =
  | { kind: 'sh'; line: string; at: string }
  | { kind: 'text'; body: string; at: string; skip: string | undefined };

/** The tour, in the order it runs: each file goes on from the state the one before left. */
export const TOUR = ['docs/recorrido.md', 'docs/notificaciones.md', 'docs/sandbox.md'];
const texts = TOUR.map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));
const readme = texts.map((t) => t.text).join('\n');

/** A file's sh lines and text blocks in order, each with its file and line number (1-based). */
function tour(file: string, text: string): Step[] {
  const steps: Step[] = [];
  const rows = text.split('\n');
  for (let i = 0; i < rows.length; i++) {
    const fence = /^```(sh|text)\s*$/.exec(rows[i]!);
    if (!fence) continue;
    let end = i + 1;
    while (end < rows.length && rows[end] !== '```') end++;
    if (fence[1] === 'sh') {
      for (let j = i + 1; j < end; j++) {
        const line = rows[j]!.trim();
        if (line !== '' && !line.startsWith('#'))
          steps.push({ kind: 'sh', line, at: `${file}:${j + 1}` });
      }
    } else {
      const skip = /^<!-- readme: sin comparar \((.+)\) -->$/.exec(rows[i - 1] ?? '')?.[1];
      steps.push({
        kind: 'text',
        body: rows.slice(i + 1, end).join('\n'),
        at: `${file}:${i + 1}`,
        skip,
      });
    }
    i = end;
  }
  return steps;
}

/**
 * What a terminal ends up showing: a line redrawn (a prompt answered) is what follows
 * its last erase; other control sequences draw nothing.
 */
function screen(out: string): string {
  return out
    .split('\n')
    .map((l) => {
      const erased = l.lastIndexOf('\u001b[2K');
      return (erased < 0 ? l : l.slice(erased + 4))
        .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
        .replace(/\r/g, '');
    })
    .join('\n');
}

/**
 * What may differ from one run to the next, and layout: event ids, request codes,
 * keys and secrets, signatures, dates and times, durations, ports; runs of spaces
 * (columns widen with their values); trailing blank lines.
 */
export function normalise(out: string, codes: ReadonlySet<string>): string[] {
  const lines = screen(out)
    .replace(/\b[A-Z0-9]{10}\b/g, (t) => (codes.has(t) ? '<codigo>' : t))
    .replace(/\bevt_[0-9a-f]{12}\b/g, 'evt_<id>')
    .replace(/\bsvc_(test|live)_[0-9a-f]{32}\b/g, 'svc_$1_<clave>')
    .replace(/\bwhsec_[0-9a-f]{48}\b/g, 'whsec_<secreto>')
    .replace(/\bsha256=[0-9a-f]{64}\b/g, 'sha256=<firma>')
    .replace(/\b\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?/g, '<fecha>')
    .replace(/\b\d{2}:\d{2}:\d{2}\b/g, '<hora>')
    .replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, '<duración>')
    .replace(/\/pagar\/[A-Z0-9]{10}\b/g, '/pagar/<codigo>')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<puerto>')
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim());
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  while (lines.length && lines[0] === '') lines.shift();
  return lines;
}

/** Whether `actual` is `expected`, where a line `…` in expected stands for any lines (none included). */
export function matches(expected: string[], actual: string[]): boolean {
  const parts: string[][] = [[]];
  for (const l of expected) l === '…' ? parts.push([]) : parts[parts.length - 1]!.push(l);
  const at = (i: number, part: string[]) => part.every((l, k) => actual[i + k] === l);
  if (parts.length === 1) return expected.length === actual.length && at(0, expected);
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!at(0, first)) return false;
  let pos = first.length;
  for (const part of parts.slice(1, -1)) {
    let found = -1;
    for (let i = pos; i + part.length <= actual.length; i++)
      if (at(i, part)) ((found = i), (i = actual.length));
    if (found < 0) return false;
    pos = found + part.length;
  }
  const tail = actual.length - last.length;
  return tail >= pos && at(tail, last);
}

/** A text block's `$ command` sections: the command and the lines shown under it. */
function sections(body: string): { command: string; output: string }[] {
  const out: { command: string; output: string }[] = [];
  for (const line of body.split('\n')) {
    if (line.startsWith('$ ')) out.push({ command: line.slice(2).trim(), output: '' });
    else if (out.length) out[out.length - 1]!.output += `${line}\n`;
  }
  return out;
}

const steps = texts.flatMap((t) => tour(t.file, t.text));
/** The request codes the tour's samples show (where a code stands: after codigo, in parentheses, in a payment link). */
const README_CODES = new Set(
  [...readme.matchAll(/(?:codigo\s+|\(|\/pagar\/|"codigo":")([A-Z0-9]{10})\b/g)].map((m) => m[1]!),
);

/** The codes of every request the sandbox holds now. */
async function sandboxCodes(): Promise<Set<string>> {
  return new Set(
    ((await sb.api('GET', '/v1/cobros')).body.data as { codigo: string }[]).map((c) => c.codigo),
  );
}
/** The commands a sample shows the output of. */
const shown = new Set(
  steps.flatMap((s) =>
    s.kind === 'text' && !s.skip ? sections(s.body).map((x) => x.command) : [],
  ),
);
const commandOf = (line: string) => line.replace(/\s+# exit \d+$/, '');

let sb: Sandbox;
const cwd = tempDir('svc-readme-');
const config = tempDir('svc-readme-config-');
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await sb?.stop();
});

/**
 * A tour line that is one plain svc call, as its words; undefined when the shell has a
 * part in it (a pipe, a redirection, $(…), a variable, a glob, a backslash), which runs
 * through bash as a person's terminal would. Quotes group words, as in sh.
 */
export function plainSvc(line: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === '"' || ch === "'") {
      const end = line.indexOf(ch, i + 1);
      if (end < 0) return undefined;
      const inside = line.slice(i + 1, end);
      if (ch === '"' && /[$`\\!]/.test(inside)) return undefined;
      word = (word ?? '') + inside;
      i = end;
    } else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (ch === '#' && word === undefined) {
      break;
    } else if (/[|&;<>()$`\\*?[\]{}~!]/.test(ch)) {
      return undefined;
    } else {
      word = (word ?? '') + ch;
    }
  }
  if (word !== undefined) words.push(word);
  return words[0] === 'svc' ? words.slice(1) : undefined;
}

/**
 * Runs one line of the tour. A line whose output a sample shows runs as on a person's
 * terminal (the samples are what a person sees): tables, prompts answered "s", 160
 * columns, stderr and stdout in one stream in the order they were written. A plain svc
 * call runs in this process through main(argv, deps), as the built CLI would run it
 * (bin/svc.js is main with the process's streams: its wiring has its own tests); a line
 * the shell takes part in runs through bash with svc being the built CLI.
 */
async function run(
  command: string,
  asShown: boolean,
): Promise<{ exitCode: number; stderr: string; all: string }> {
  const env = {
    ...process.env,
    ...sb.env,
    SVC_CONFIG_DIR: config,
    SVC_DATA_DIR: cwd,
    NO_COLOR: '1',
    ...(asShown ? { SVC_FORCE_TTY: '1', COLUMNS: '160' } : {}),
  };
  const argv = plainSvc(command);
  // The pager writes to the process's own stdout; `less -FRX` copies a piped page as is, so here the text is written directly.
  if (argv)
    return svc(argv, { env: { ...env, SVC_PAGER: 'cat' }, input: asShown ? 's\n' : '', cwd });
  const script = `svc() { node ${JSON.stringify(BIN)} "$@"; }\nset -o pipefail\n${asShown ? `{ ${command}\n} 2>&1` : command}`;
  const r = await execa('bash', ['--norc', '--noprofile', '-c', script], {
    cwd,
    reject: false,
    all: true,
    input: asShown ? 's\n' : '',
    env,
  });
  return { exitCode: r.exitCode ?? -1, stderr: String(r.stderr ?? ''), all: String(r.all ?? '') };
}

describe('the tour of every command (docs/)', () => {
  it('has a tour to run, and its sample outputs say what they show', () => {
    expect(steps.filter((s) => s.kind === 'sh').length).toBeGreaterThan(20);
    for (const s of steps) {
      if (s.kind === 'text' && !s.skip) {
        expect(
          sections(s.body).length,
          `${s.at}: a text block with no "$ command" line needs <!-- readme: sin comparar (why) --> on the line before it`,
        ).toBeGreaterThan(0);
      }
    }
  });

  it('runs a plain svc call in this process and gives every line the shell takes part in to bash', () => {
    expect(plainSvc(`svc cobro crear --concepto "Seña clase" --monto 1,5  # exit 2`)).toEqual([
      'cobro',
      'crear',
      '--concepto',
      'Seña clase',
      '--monto',
      '1,5',
    ]);
    expect(plainSvc(`svc webhook sign --body evento.json --x '{"a":1}'`)).toEqual([
      'webhook',
      'sign',
      '--body',
      'evento.json',
      '--x',
      '{"a":1}',
    ]);
    for (const line of [
      'svc comandos --json | jq .',
      'svc caso "$(svc cobro listar)"',
      'svc escenario exportar > e.json',
      'svc x $HOME',
      'svc x *.csv',
      'printf a > b',
    ]) {
      expect(plainSvc(line), line).toBeUndefined();
    }
  });

  // Dozens of commands one after another: on a loaded 2-core machine this takes minutes, not seconds.
  it('every command it shows runs as shown, and prints what its samples show', async () => {
    const printed = new Map<string, string>();
    for (const step of steps) {
      if (step.kind === 'sh') {
        const expected = Number(/# exit (\d+)$/.exec(step.line)?.[1] ?? 0);
        const r = await run(commandOf(step.line), shown.has(commandOf(step.line)));
        expect({
          line: step.line,
          exitCode: r.exitCode,
          stderr: r.exitCode !== expected ? r.stderr : '',
        }).toEqual({ line: step.line, exitCode: expected, stderr: '' });
        expectNoStack(r.stderr);
        printed.set(commandOf(step.line), r.all);
        continue;
      }
      if (step.skip) continue;
      for (const { command, output } of sections(step.body)) {
        // The tour's own line when there is one (its output is what the tour printed);
        // otherwise the command, run now, at this point of the tour.
        const all = printed.get(command) ?? (await run(command, true)).all;
        const want = normalise(output, README_CODES);
        const got = normalise(all, await sandboxCodes());
        if (!matches(want, got)) {
          const how =
            `${step.at}: the sample output of "$ ${command}" is not what svc prints.\n` +
            `Update that block with svc's output below (ids of events, codes, keys, dates, times and durations may stay as they are: ` +
            `they are normalised; a line "…" stands for lines left out):\n\n${screen(all)}`;
          expect(got.join('\n'), how).toBe(want.join('\n'));
        }
      }
    }
  }, 300_000);
});
