// A QR code drawn in the terminal with Unicode half blocks: each character holds two
// rows of modules, so the code keeps its square shape at half the height.
import qrcode from 'qrcode-generator';

const QUIET = 2;

/** The module matrix of a QR code for text (true = dark), with a quiet zone. */
export function qrMatrix(text: string, quiet = QUIET): boolean[][] {
  const qr = qrcode(0, 'M');
  qr.addData(text, 'Byte');
  qr.make();
  const n = qr.getModuleCount();
  const size = n + quiet * 2;
  const rows: boolean[][] = [];
  for (let r = 0; r < size; r++) {
    const row: boolean[] = [];
    for (let c = 0; c < size; c++) {
      const inside = r >= quiet && c >= quiet && r < n + quiet && c < n + quiet;
      row.push(inside && qr.isDark(r - quiet, c - quiet));
    }
    rows.push(row);
  }
  return rows;
}

/**
 * Lines of the QR code. With colour, dark modules are black on a white background
 * whatever the terminal theme; without colour, light modules are drawn as blocks,
 * which scans on the usual light-on-dark terminal.
 */
export function renderQr(text: string, options: { color: boolean }): string[] {
  const m = qrMatrix(text);
  const lines: string[] = [];
  for (let r = 0; r < m.length; r += 2) {
    const top = m[r]!;
    const bottom = m[r + 1] ?? top.map(() => false);
    let line = '';
    let last = '';
    for (let c = 0; c < top.length; c++) {
      const t = top[c]!;
      const b = bottom[c]!;
      if (options.color) {
        // upper half = foreground, lower half = background; 30 black / 97 white, 40 black / 107 white
        const sgr = `\u001b[${t ? 30 : 97};${b ? 40 : 107}m`;
        line += (sgr === last ? '' : sgr) + '▀';
        last = sgr;
      } else {
        const tl = !t;
        const bl = !b;
        line += tl && bl ? '█' : tl ? '▀' : bl ? '▄' : ' ';
      }
    }
    lines.push(options.color ? `${line}\u001b[0m` : line);
  }
  return lines;
}
