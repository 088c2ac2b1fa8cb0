// What the dashboard's script reads from its page (page.ts writes it as JSON in
// <script type="application/json" id="panel-datos">): the service's states and rules
// and the sandbox's named faults, defined once on the server side (api/enums.ts,
// rules.ts, sandbox/state.ts, sandbox/faults.ts) instead of copied into the script.
// Types only: both the browser's program and Node's read this file.
export interface PanelData {
  estados: readonly string[];
  refundable: readonly string[];
  payable: readonly string[];
  open: readonly string[];
  /** `svc sandbox fallas agregar`'s names, as POST /_sandbox/fallas takes them. */
  fallas: Record<string, Record<string, unknown>>;
}
