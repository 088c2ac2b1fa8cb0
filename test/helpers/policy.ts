// A page's security policy compared whole: the CSP directive by directive (a widened
// source, an added directive or a dropped one all fail) and the other security headers
// exactly. The hashes are those of the inline style and script the page actually
// served, so a page whose policy no longer matches its own code fails too.
import { createHash } from 'node:crypto';
import { expect } from 'vitest';

export const sha256Source = (text: string) =>
  `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The CSP as directive -> sources; a directive given twice (browsers obey the first) is an error. */
export function cspDirectives(policy: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (!name) continue;
    const key = name.toLowerCase();
    if (key in out) throw new Error(`CSP directive ${key} appears twice in: ${policy}`);
    out[key] = sources;
  }
  return out;
}

/** The one inline <style> and the one inline <script> a page serves (hashed by its CSP). */
export function inlineParts(html: string): { style: string; script: string } {
  const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
  expect(styles, 'inline <style> elements').toHaveLength(1);
  expect(scripts, 'inline <script> elements').toHaveLength(1);
  return { style: styles[0]!, script: scripts[0]! };
}

/** Security headers a page must send exactly as given (absent ones as undefined). */
export const SECURITY_HEADERS = [
  'content-security-policy',
  'x-frame-options',
  'referrer-policy',
  'x-content-type-options',
  'cache-control',
] as const;

export function expectPolicy(
  where: string,
  headers: Headers,
  csp: Record<string, string[]>,
  others: Record<Exclude<(typeof SECURITY_HEADERS)[number], 'content-security-policy'>, string>,
): void {
  const policy = headers.get('content-security-policy');
  expect(policy, `${where}: Content-Security-Policy`).not.toBeNull();
  expect(cspDirectives(policy!), `${where}: CSP directives`).toEqual(csp);
  const got: Record<string, string | null> = {};
  for (const name of Object.keys(others)) got[name] = headers.get(name);
  expect(got, `${where}: security headers`).toEqual(others);
}
