// A bounded wait for what a server, a browser or a process shows next: the probe is
// asked again until it gives a value, or the wait fails naming what it waited for.
// Never a measure of time: the bound only keeps a broken run from hanging.

/** Asks `probe` every `every` ms until it gives a value (anything but undefined or false); fails after `ms`. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 15_000,
  every = 50,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}
