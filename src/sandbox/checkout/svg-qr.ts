// The payment request's QR payload drawn as an inline SVG (one path, no external
// image), so the payer page works offline and scales crisply on any screen.
import qrcode from 'qrcode-generator';

const QUIET = 4;

/** An <svg> of the QR code for `text`; `label` is its accessible name (already escaped). */
export function qrSvg(text: string, label: string): string {
  const qr = qrcode(0, 'M');
  qr.addData(text, 'Byte');
  qr.make();
  const n = qr.getModuleCount();
  const size = n + QUIET * 2;
  let d = '';
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      if (qr.isDark(r, c)) d += `M${c + QUIET} ${r + QUIET}h1v1h-1z`;
    }
  }
  return (
    `<svg class="qr" role="img" aria-label="${label}" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges" xmlns="http://www.w3.org/2000/svg">` +
    `<rect width="${size}" height="${size}" fill="#fff"/><path d="${d}" fill="#000"/></svg>`
  );
}
