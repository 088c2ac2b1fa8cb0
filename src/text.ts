// Echoing what someone typed (or a server sent) in a message: control characters
// could drive the terminal and a 10,000-character value would flood it.

/** Control characters shown as "?", and at most `max` characters, then "…". */
export function printable(text: string, max = 60): string {
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
