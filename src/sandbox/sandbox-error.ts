// The one error type of the sandbox: handlers throw it, app.ts turns it into
// `{error, message}` with its status. Anything else is a 500 without details.

export class SandboxError extends Error {
  override name = 'SandboxError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Headers of its reply (Connection: close when the rest of the request is not read). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const notFound = () => new SandboxError(404, 'not_found', 'no existe');
export const noEndpoint = () => new SandboxError(404, 'not_found', 'no existe ese endpoint');
export const unauthorized = (message: string) => new SandboxError(401, 'unauthorized', message);

/** Raised when the sandbox cannot start (bad data file, bad option); the CLI prints the message. */
export class SandboxStartError extends Error {
  override name = 'SandboxStartError';
  constructor(
    message: string,
    /** What to do about it, when there is something (a busy port: another one). */
    readonly hint?: string,
  ) {
    super(message);
  }
}
