// What a process really asked of the kernel, from `strace -f -y`: which writes reached
// a file durably (on a descriptor opened O_DSYNC/O_SYNC, or followed by fdatasync/fsync
// of it), and when each answer was written to a socket. Black-box: it holds however a
// program batches, threads or words its writes, as long as the disk is asked the same.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const STRACE_ARGS = [
  '-f',
  '-qq',
  '-y',
  '-s',
  '65536',
  '-e',
  'trace=openat,read,readv,recvfrom,recvmsg,write,writev,pwrite64,pwritev,pwritev2,sendto,sendmsg,fdatasync,fsync,sync_file_range',
];

export function hasStrace(): boolean {
  const ok = spawnSync('strace', ['-V']).status === 0;
  if (!ok && process.env.SVC_REQUIRE_STRACE_TEST === '1')
    throw new Error(
      'SVC_REQUIRE_STRACE_TEST=1 but strace is missing: install it with apt-get install -y strace',
    );
  return ok;
}

export interface Call {
  name: string;
  fd: number | undefined;
  /** What the descriptor is, as strace -y shows it: a path, or socket:[inode]. */
  desc: string;
  text: string;
  /** Line where the call started and where it returned (a call may be interrupted by other threads' lines). */
  start: number;
  end: number;
}

const WRITES = new Set(['write', 'writev', 'pwrite64', 'pwritev', 'pwritev2', 'sendto', 'sendmsg']);
const READS = new Set(['read', 'readv', 'recvfrom', 'recvmsg']);
const SYNCS = new Set(['fdatasync', 'fsync']);

export function readTrace(file: string): Call[] {
  const calls: Call[] = [];
  const open = new Map<string, Call>();
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.forEach((line, i) => {
    const resumed = /^(\d+)\s+<\.\.\. (\w+) resumed>(.*)$/.exec(line);
    if (resumed) {
      const c = open.get(resumed[1]!);
      if (c) {
        c.text += resumed[3];
        c.end = i;
        open.delete(resumed[1]!);
        if (c.name === 'openat') opened(c, line);
      }
      return;
    }
    const m = /^(\d+)\s+(\w+)\((.*)$/.exec(line);
    if (!m) return;
    const fdm = /^(\d+)<(.*?)>(?=, |\)| <unfinished)/.exec(m[3]!);
    const c: Call = {
      name: m[2]!,
      fd: fdm ? Number(fdm[1]) : undefined,
      desc: fdm ? fdm[2]! : '',
      text: m[3]!,
      start: i,
      end: i,
    };
    if (c.name === 'openat') opened(c, line);
    calls.push(c);
    if (line.endsWith('<unfinished ...>')) open.set(m[1]!, c);
  });
  return calls;
}

/** An openat's result: the descriptor and its path (`= 19</dir/file>`). */
function opened(c: Call, line: string): void {
  const ret = /\)\s+= (\d+)<(.*)>\s*$/.exec(line);
  if (ret) ((c.fd = Number(ret[1])), (c.desc = ret[2]!));
}

/** When each write to `path` was on disk: the line it returned (O_DSYNC) or that of the fdatasync/fsync after it; Infinity if never. */
export function durableWrites(calls: Call[], path: string): { call: Call; durableAt: number }[] {
  const out: { call: Call; durableAt: number }[] = [];
  for (const [i, c] of calls.entries()) {
    if (!WRITES.has(c.name) || c.desc !== path) continue;
    const opened = calls
      .slice(0, i)
      .reverse()
      .find((o) => o.name === 'openat' && o.fd === c.fd && o.desc === path);
    const syncOpen = opened !== undefined && /\bO_(D)?SYNC\b/.test(opened.text);
    const syncFlag = /\bRWF_(D)?SYNC\b/.test(c.text);
    let durableAt = syncOpen || syncFlag ? c.end : Infinity;
    if (durableAt === Infinity) {
      const sync = calls.find(
        (s) => SYNCS.has(s.name) && s.desc === path && s.fd === c.fd && s.start > c.end,
      );
      if (sync) durableAt = sync.end;
    }
    out.push({ call: c, durableAt });
  }
  return out;
}

/** The first read from a TCP connection that holds `marker`, and the first write back on that connection after it. */
export function exchange(
  calls: Call[],
  marker: string,
): { request: Call; answer: Call | undefined } | undefined {
  const request = calls.find(
    (c) => READS.has(c.name) && /^(socket|TCP)/.test(c.desc) && c.text.includes(marker),
  );
  if (!request) return undefined;
  const answer = calls.find(
    (c) => WRITES.has(c.name) && c.desc === request.desc && c.start > request.end,
  );
  return { request, answer };
}

/** The pid of the program strace started (the first line of its trace). */
export function tracedPid(file: string): number {
  const m = /^(\d+)\s/.exec(readFileSync(file, 'utf8'));
  if (!m) throw new Error(`no traced process in ${file}`);
  return Number(m[1]);
}
