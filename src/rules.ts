// Rules about text that the CLI checks before sending and the sandbox checks on
// receipt, written once so the two cannot disagree about what is refused.

/**
 * Characters no text field may hold: C0 controls, DEL, C1 controls, and the bidi
 * embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069). Each can drive
 * a terminal or make a text read differently from what it holds.
 */
export const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
