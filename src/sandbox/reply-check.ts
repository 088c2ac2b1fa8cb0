// The sandbox's replies checked against the endpoint table (api/contract.ts), as the
// Firebase auth emulator checks its own against its spec: a 2xx must be the endpoint's
// strict reply (only what the seed shows), anything else `{error, message}` with a code
// the sandbox may answer. Turned on by the tests (createSandbox's checkReplies), where
// a reply that drifts from the table is a loud 500 instead of a passing test.
import * as z from 'zod/mini';
import { API, strictReply, type EndpointName } from '../api/contract.js';
import { SandboxErrorBody } from '../api/schemas.js';

const strictError = z.strictObject(SandboxErrorBody.shape);
const replies = new Map<EndpointName, z.ZodMiniType>();

/** Why a reply of an endpoint is not what the table says it answers, in one line; undefined when it is. */
export function replyProblem(
  endpoint: EndpointName,
  status: number,
  body: unknown,
): string | undefined {
  let schema: z.ZodMiniType = strictError;
  if (status >= 200 && status < 300) {
    const want = API[endpoint].reply.status;
    if (status !== want) return `status ${status}, the table says ${want}`;
    schema =
      replies.get(endpoint) ?? replies.set(endpoint, strictReply(API[endpoint])).get(endpoint)!;
  }
  const r = schema.safeParse(body);
  if (r.success) return undefined;
  const issue = r.error.issues[0]!;
  const where = issue.path.join('.') || '(root)';
  const what =
    issue.code === 'unrecognized_keys'
      ? `fields the table does not list (${issue.keys.join(', ')})`
      : issue.message;
  return `${where}: ${what}`;
}
