#!/usr/bin/env node
// `npm run mutation [module…]`: StrykerJS mutates one module at a time and runs the
// tests that exercise it in this process (vitest.mutation.config.ts); a surviving
// mutant is a change to the code that no test sees. Not part of npm test (minutes
// per module). Prints each module's mutation score and the machine's load, and exits
// 1 when a module is under its threshold or Stryker fails; reports land in
// reports/mutation/. SVC_MUTATION_CONCURRENCY (default 1): test processes at once. A
// module's `timeoutMS` replaces the 20 s a mutant may run past its tests' own time;
// `isolate: false` runs its test files on one import of the code (vitest's isolate).
// `npm run mutation -- --list` prints the modules and their thresholds.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Where a silent change costs money or trust, the tests that must see it, and the
 * score under which the run fails (85 % unless a module says otherwise). `equivalent`:
 * the mutants that survive because no test could tell them apart from the code (they
 * behave the same on the platform the tests run on, or everywhere), each with why;
 * they count against the score, and `--list` prints them.
 */
export const MODULES = {
  money: {
    mutate: ['src/domain/money.ts'],
    tests: [
      'test/core/money.test.ts',
      'test/core/money.property.test.ts',
      'test/core/money.problems.test.ts',
    ],
  },
  signature: { mutate: ['src/webhooks/signature.ts'], tests: ['test/webhooks/signature.test.ts'] },
  plan: {
    mutate: ['src/cli/commands/devolver/plan.ts'],
    tests: ['test/cli/devolver/plan.file.test.ts', 'test/cli/devolver/plan.test.ts'],
  },
  // Its loops (partial writes, rotation, reading back) hang when mutated; the tests a
  // mutant runs take a second or two (files of a few KiB read in 4 KiB chunks), so 3 s
  // past that is a hang, not a busy machine.
  journal: {
    mutate: ['src/webhooks/event-journal.ts'],
    timeoutMS: 3_000,
    // Its test files share one import of the module in a mutant's run (they restore what
    // they change: setReadSizes, mocks); importing it again for each file was half the run.
    isolate: false,
    tests: [
      'test/webhooks/journal.test.ts',
      'test/webhooks/journal.entries.test.ts',
      'test/webhooks/journal.failures.test.ts',
      // The index a reader finds a request's entries by, and the readers from the newest back.
      'test/webhooks/journal.index.test.ts',
      // Reading from the newest entry back across chunks, and the look-up `webhook ver` does.
      'test/webhooks/journal.backward.test.ts',
      // An index used only when it can be trusted, and kept good by the listener.
      'test/webhooks/journal.index-trust.test.ts',
      // What it keeps, its generations' names, lines past 16 MiB, descriptors closed, files it cannot open.
      'test/webhooks/journal.limits.test.ts',
      // `webhook ver` and `webhook replay` looking an id up through the index.
      'test/webhooks/journal.lookup-index.test.ts',
    ],
    equivalent: [
      'newEntryId: a new block of random bytes taken sooner (`idAt + ID_BYTES > idPool.length` made true, or `>=`) (2): the ids are as random and of the same form',
      "entryBody: `Buffer.from(body, '')`: Buffer.from reads an empty encoding as utf8; JournalError's name as '': callers tell it by instanceof and show its message",
      "flush: `n === 1` made false: joining one line gives that line; rotate: the oldest file's rm without `{ force: true }` (2): generationPaths has just listed it",
      'Journal.close: `if (this.closed) return` made false: the second close finds nothing queued, and closing a closed FileHandle resolves',
      "entryProblem and responseProblem: the `typeof … === 'number'` before Number.isFinite or Number.isSafeInteger made true, or joined with `||` (6): both are false for anything not a number",
      'LineParts: an empty piece added (`piece.length === 0` made false), the early return once a line is too long removed (each piece past the limit sets tooLong again and drops the parts), and take() concatenating a single part (3)',
      "linesForward: `nl < n` as `nl <= n` (a stale byte past the read only ends the line where the file ends), the offsets of a line's start (`offset + from`, `offset += n`: a forward reading numbers its lines by counting them; only a FIFO read newest first uses them), and a last empty line yielded (`!line.empty` made true: an empty line is blank)",
      'linesBetween: the size of its buffer (`Math.max(1, …)`, `Math.min(CHUNK_BYTES, …)`, `to - from`: only how many reads it takes), `offset <= to` (a read of 0 bytes ends it), `n === 0` made false (the stretch read is inside the size the file had when it was opened; only a file cut meanwhile differs), and a last empty line yielded',
      "linesBackward: the last newline's test (`pos + nl + 1 === size && line.empty`) made true, false, `!==` or its sums changed, and the empty line before the first yielded (`!line.empty` made true) (6): the line it lets through is empty, and an empty line is blank",
      'idNumber: the `$` of `/^evt_[0-9a-f]{12}$/` removed, and -1 for other ids as +1 (2): a longer run of hex digits, or +1, gives the record and the line the same number',
      "entryAt: `got !== buf.length` made false: trusted() has already refused a record past the file's end, and the file is not cut between; `buf.length + 1`: subarray stops at the buffer's end, and the newline is then JSON's whitespace",
      "readIndex: a new array each time (`scratch && …` made false, or `>` for `>=`) (2): the same numbers; `HEADER_BYTES - at`: the first read reads the whole index; `n === 0` made false: the index's size was taken before; LITTLE_ENDIAN and its conversion (made true or false, `[1]` as `[]`, the loop) (15): on a little-endian machine the numbers are read as they are",
      'trusted: `end > size` made false: the last record is the one that ends last, and entryAt refuses it past the end',
      'IndexWriter.open: `raw.end === undefined` made false: Journal.open ends a torn last line before it indexes, so every line has its newline; wrote(): `!this.fh` made false: the TypeError is caught and the index closed, as without one',
      "JournalReader: forward readings numbered by lineNumbers instead of by count (`true` as `false` in files() and in fileAbout) (2): the same numbers; the scratch array kept between files (`f && f.buffer !== …` made false, true or `===`) (3): memory only; an empty stretch pushed (trusted's `offset > end` and picked's `st.size > index.end` made true or `>=`) (4): it reads nothing",
      'fileAbout: `got === null` made false: with no such file the file is read line by line, and a file that is not there reads as empty; readIndex: its `catch` emptied: the function then ends, undefined the same',
      "picked: `keep(entry)` made true for an entry a record names: entryAt has checked the line's request and id's 48 bits against the record's, so a record of the id's bits holds that id (svc's ids are lower-case hex), and one of the request an entry about it (a replay is checked again for its `replay_of`)",
      "lookUp's reading back: `events('newest')` and `rejected('newest')` with '' (2): only 'oldest' reads forward",
      'problems(): line numbers looked up for lines that have theirs (`p.line === undefined` made true), and `numbers.get(file)?.get` without `?.`: every file with an unnumbered line has its numbers (2)',
    ],
  },
  // The guard is the first part of text.ts (what may reach a terminal); the rest is column widths and wrapping.
  guard: {
    mutate: ['src/text.ts:1-115'],
    tests: ['test/output/text.test.ts', 'test/output/guard.test.ts'],
  },
  // Batches: the ledger and rowOnce both batches share, and payment requests' batch (cobro crear --lote).
  // main() imports a command's module when it first runs, so a value lote.ts makes as it
  // loads (RESULT_COLUMNS: the table's headers and alignment) is credited by perTest
  // coverage to the first test of each file, and Stryker runs only those against its
  // mutants: they show as survived, though the terminal test fails on each.
  batch: {
    mutate: ['src/cli/shared/ledger.ts', 'src/cli/commands/cobro/lote.ts'],
    tests: [
      'test/cli/shared/ledger.test.ts',
      'test/cli/cobro/lote.test.ts',
      'test/cli/cobro/lote-referencias.test.ts',
      // A row's date words counted from the sandbox's moved clock.
      'test/cli/service-clock.test.ts',
      // A spreadsheet's encoding and the columns svc does not use, said before the rows.
      'test/cli/spreadsheets.test.ts',
    ],
    equivalent: [
      "ledger.ts: a blank line's `!line.trim()` made false or `line.trim()` as `line`, and the JSON.parse catch's `continue` removed (3): JSON.parse refuses a blank line, and an unparsed `e` is then no object, skipped the same",
      'lote.ts csvMedios: `text.trim()` as `text`: the CSV reader trims every cell; the split on `[\\s+|/]+` without its `+`: the empty pieces are filtered out',
      "lote.ts CheckedRows: `i === undefined` made false (`values[undefined]` is undefined, so '' the same) and the `?? ''` of a missing cell (2): a row with another number of columns is refused by the reader, so every cell is there",
      'lote.ts CheckedRows: `err instanceof DateError` made true, and `!(err instanceof CliError)` made false (2): every check of a row throws a CliError, and parseVencimiento only DateError',
      'lote.ts CheckedRows: `if (this.bad.length) return` made false: the rows kept after a bad one are never used, the run stops at refuseBad',
      "lote.ts createBatch: `notices` starting with an element: the header's callback empties it before anything is said",
      'lote.ts createLocked: `live` made true in the no-terminal branch: guardChange itself returns at once outside live mode',
      "lote.ts createLocked: printTable's 'no hay filas': the table has a row for every row of the file, never none",
      'lote.ts createLocked: the `finally` that closes the ledger emptied: the descriptor goes with the process, which runs one batch',
      "lote.ts byReferencia: the filters on a request's key and on rows still to do (6): the map is only read with the key of a row still to do",
      "lote.ts findByReferencia: `{ q: referencia }` as `{}`: every request listed is still filtered by the referencia's key, so the same one is found; createRow's `round === 0` made false: asking the service again finds the request the whole list read before the run had",
      "lote.ts RESULT_COLUMNS: the link column's `?? ''`: a row is created (its url) or refused or in doubt (its error), never neither",
    ],
  },
  liquidaciones: {
    mutate: ['src/domain/liquidaciones.ts', 'src/sandbox/fees.ts'],
    tests: [
      'test/cli/liquidaciones.test.ts',
      'test/sandbox/state.test.ts',
      'test/sandbox/fees.test.ts',
    ],
  },
  // A bank statement against the settlements: which credit is which day's.
  conciliar: {
    mutate: ['src/domain/extracto.ts'],
    tests: ['test/cli/liquidaciones-conciliar.test.ts'],
    equivalent: [
      "decimalMark: the `.filter((v) => v !== '')` of the bare values removed, made true, or compared with another string (3): every test after it needs a digit, which '' has not",
      'parseWrittenAmount: the `(` `)` test without its `^` or without its `$` (2): slicing off a first or last character that is not the parenthesis leaves a parenthesis in the text, which no amount holds, as the text left alone does',
      "parseWrittenAmount: `whole = ''` defaulting to another string, and `whole === ''` made false or compared with another string (3): split always gives a first piece, and an empty one fails the digits test after it",
      'parseStatementDate: `text.trim()` as `text`: both callers pass trimmed text (csv.ts trims every cell; --feriados trims each part)',
      'parseStatementDate: the month check or the day check made false (2): a month outside 1–12 moves the year too (0 to December of the year before, 13 and up into a later one), and a day outside its month (0 to 99) moves the month',
      'reconcile: the expected days sorted with `<=` for `<`: the CLI sums each day into one entry, so no two compare equal',
      "reconcile: `last < period.desde` made false: every credit is inside the period (it runs from the statement's first date to its last), so such a day finds none and is counted outside by `e.fecha < period.desde` the same",
      "reconcile: the totals' `f[field] !== null` made true: every row of the states summed has that field",
    ],
  },
  // What a write's failure means: sent or not, and whether it may have been done (exit 6).
  outcome: {
    mutate: ['src/api/service-errors.ts', 'src/cli/outcome.ts'],
    tests: [
      'test/cli/outcome.test.ts',
      'test/cli/write-outcome.test.ts',
      'test/cli/errors.test.ts',
      'test/api/faults.test.ts',
      'test/api/faults-writes.test.ts',
    ],
    equivalent: [
      'outcome.ts unexpected(): the default `writes = []` made a list of a string: only writes whose `sent` is true count, and a string has none',
      "outcome.ts outcomeUnknown(): `err.name === 'NetworkError'` made true: any other error has no `sent`, so `sent !== false` is the `true` the last line returns",
      'outcome.ts unknownOutcomeReason(): the --debug hint removed without the `$` anchor: the hint is svc’s own and only ever ends the line',
    ],
  },
  // Reading a list page by page, nothing skipped, nothing twice: the signs a page gives of
  // more (list.ts, from PagedList to IncompleteListError) and the client's loop that follows
  // them. The scanner of list.ts (JSON read item by item) is not part of it: its property
  // tests make each of its ~700 mutants cost seconds.
  pagination: {
    mutate: [
      { file: 'src/api/list.ts', from: 'export class PagedList', to: 'const QUOTE = 34;' },
      {
        file: 'src/api/client.ts',
        from: '// Page after page while the service says the list goes on',
        to: '/** Any request; returns the parsed JSON body as sent.',
      },
    ],
    tests: ['test/api/list.test.ts', 'test/cli/list-signs.test.ts'],
    equivalent: [
      "list.ts CONTAINERS' '_links' and 'page_info': names are compared with underscores and dashes removed, so they are 'links' and 'pageinfo', also listed (2)",
      'list.ts PagedList: the arguments its constructor passes to ItemList, and the bounds check of at() (each page checks its own), and the binary search starting one page higher: PagedList answers from its pages (7)',
      "list.ts pagingOf: skipping the envelope's `data` (no paging name is `data`); `href.trim() !== ''` (isAddress trims and refuses blanks too); the `typeof value === 'number'` before Number.isSafeInteger, and the `typeof value === 'object'` of a next or a container (a number or a string has no href or members); `?.` after JSON.stringify of a parsed JSON value (never undefined); a page sign with either number missing (`undefined < n` is false) (19)",
      "linkNext: `split(/\\s+/)` as `split(/\\s/)` (a blank between rels still leaves `next` among them), the header defaulting to another string than '' (no `<` in it), a rel's `?? ''` (never reached: an unquoted value is captured, if empty), `\\s*` after ';' as `\\S*` (the next part takes the blanks)",
      "client.ts: the request's method 'GET' as '' (node sends GET; only whether a failed page is retried would differ, and no case here fails a page) and streamList false (the page is then read whole, the same items); a single page wrapped in a PagedList",
      'client.ts: the check of MAX_LIST_PAGES (100,000 pages) and its message: no test serves 100,000 pages (3)',
    ],
  },
  // Which proxy a connection goes through (NO_PROXY by curl's rules, flag > environment >
  // profile), and what svc says when the proxy fails.
  proxy: {
    mutate: ['src/api/network.ts'],
    tests: ['test/api/network.test.ts', 'test/cli/proxy.test.ts'],
    equivalent: [
      "configured(): `PROXY_VARS[protocol] ?? []` as a list of a string: it is only asked for an address's scheme, and svc's addresses are http: or https:, both in PROXY_VARS",
      'isLoopback(): the 127 test without its `^`: URL reads a name whose last label is a number as an IPv4 address (or refuses it), so a host that ends in 127.x.x.x is that address',
      "isLoopback(): `host === '0:0:0:0:0:0:0:1'` made false or compared with '' (2): URL writes every IPv6 address compressed, so the long spelling reaches it as '::1'",
      'bypassesProxy(): the split on `[\\s,]+` without its `+`: the empty pieces between two separators are skipped by `if (!entry) continue`',
      'bypassesProxy(): `raw.trim()` as `raw`: the split has already cut at every blank, so no piece holds one',
      "bypassesProxy(): the first `if (!entry) continue` made false: an empty entry is no '*', bracket, port or range, and is skipped by the second one after the dot strip",
      "bypassesProxy(): `slash >= 0` as `slash > 0`: an entry starting with '/' is then compared as a name, and no host holds a '/'; as a range its base '' is no address: skipped either way",
    ],
  },
  // Every durable write: fsync before returning, rename, folder fsync.
  durable: {
    mutate: ['src/durable.ts'],
    tests: [
      'test/durable.test.ts',
      'test/durable-async.test.ts',
      'test/cli/durable-writes.test.ts',
    ],
    equivalent: [
      'WINDOWS (`process.platform === \'win32\'`) made false or compared with "", and three `if (WINDOWS)`/`if (!WINDOWS)` made constant the Linux way: the tests run on Linux, where WINDOWS is false (5 mutants)',
      'openAppendAsync: `O_DSYNC !== undefined` made true: Linux has O_DSYNC',
      '`Buffer.from(text, \'utf8\')` with "" for the encoding (3 places): Buffer.from reads an empty encoding as utf8',
      "writeContent: `typeof content === 'string'` made true: Buffer.from of a Uint8Array copies the same bytes",
      'openAppend and openAppendAsync: the rethrow of an open error other than ENOENT removed (4 mutants): the open that creates the file then fails the same way (EEXIST leads to the same open again; EISDIR, ELOOP, EACCES come back as they were)',
    ],
  },
};
const THRESHOLD = 85;

/**
 * What Stryker mutates for one entry of `mutate`: a file, or `{ file, from, to }`, the
 * lines of `file` from the one holding `from` to the one before the one holding `to`,
 * found in the file as it is today so the range follows the code as it moves.
 */
function target(entry) {
  if (typeof entry === 'string') return entry;
  const lines = readFileSync(join(ROOT, entry.file), 'utf8').split('\n');
  const first = lines.findIndex((l) => l.includes(entry.from));
  const end = lines.findIndex((l, i) => i > first && l.includes(entry.to));
  if (first < 0 || end < 0)
    throw new Error(
      `mutation: ${entry.file} no longer holds ${first < 0 ? entry.from : entry.to}: update run.mjs`,
    );
  return `${entry.file}:${first + 1}-${end}`;
}

if (process.argv.includes('--list')) {
  for (const [name, m] of Object.entries(MODULES)) {
    console.log(`${name}\t${m.threshold ?? THRESHOLD}%\t${m.mutate.map(target).join(', ')}`);
    for (const why of m.equivalent ?? []) console.log(`\tequivalent: ${why}`);
  }
  process.exit(0);
}

/** The 1, 5 and 15 minute load averages, as uptime prints them. */
const load = (l) => l.map((x) => x.toFixed(1)).join(' ');
const minutes = (since) => ((Date.now() - since) / 60_000).toFixed(1);

const asked = process.argv.slice(2).filter((a) => a !== '--list');
for (const name of asked) {
  if (!(name in MODULES)) {
    console.error(`mutation: no module "${name}" (one of: ${Object.keys(MODULES).join(', ')})`);
    process.exit(2);
  }
}
const names = asked.length > 0 ? asked : Object.keys(MODULES);
const concurrency = process.env.SVC_MUTATION_CONCURRENCY ?? '1';
const scores = [];
let failed = false;
for (const name of names) {
  const { tests } = MODULES[name];
  const mutate = MODULES[name].mutate.map(target);
  const report = `reports/mutation/${name}.json`;
  console.log(`mutation: ${name} (${mutate.join(', ')}) against ${tests.join(', ')}`);
  const started = Date.now();
  const before = loadavg();
  const run = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/@stryker-mutator/core/bin/stryker.js'),
      'run',
      'stryker.config.mjs',
      '--mutate',
      mutate.join(','),
      '--concurrency',
      concurrency,
      // A module whose tests take a second or two says how long past that a mutant may
      // run before it counts as a hang (killed), instead of stryker.config.mjs's 20 s.
      ...(MODULES[name].timeoutMS ? ['--timeoutMS', String(MODULES[name].timeoutMS)] : []),
    ],
    {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        SVC_MUTATION_TESTS: tests.join(','),
        SVC_MUTATION_REPORT: report,
        SVC_MUTATION_ISOLATE: MODULES[name].isolate === false ? '0' : '1',
      },
    },
  );
  if (run.status !== 0) {
    failed = true;
    scores.push(`${name}: stryker failed (exit ${run.status})`);
    continue;
  }
  const files = JSON.parse(readFileSync(join(ROOT, report), 'utf8')).files;
  const count = { killed: 0, survived: 0, timeout: 0, nocov: 0, other: 0 };
  for (const file of Object.values(files)) {
    for (const m of file.mutants) {
      if (m.status === 'Killed') count.killed++;
      else if (m.status === 'Timeout') count.timeout++;
      else if (m.status === 'Survived') count.survived++;
      else if (m.status === 'NoCoverage') count.nocov++;
      else count.other++;
    }
  }
  const detected = count.killed + count.timeout;
  const valid = detected + count.survived + count.nocov;
  const score = valid === 0 ? 100 : (100 * detected) / valid;
  const threshold = MODULES[name].threshold ?? THRESHOLD;
  const under = score < threshold;
  if (under) failed = true;
  scores.push(
    `${name}: ${score.toFixed(1)}% (${detected} of ${valid} mutants killed; ${count.survived} survived, ${count.nocov} without coverage)${under ? ` UNDER ${threshold}%` : ''}; ${minutes(started)} min, load ${load(before)} at the start, ${load(loadavg())} at the end`,
  );
}
console.log('\nmutation scores:');
for (const line of scores) console.log(`  ${line}`);
process.exit(failed ? 1 : 0);
