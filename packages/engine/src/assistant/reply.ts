/** What the assistant answers (assistant/ask.ts), shared with its model path (assistant/model.ts). */

/** A re-open the assistant proposes and waits for a "yes" on. */
export interface Proposal {
  token: string;
  /** Exactly what will happen, e.g. "Re-open 2 runs from member words on the latest saved version (v3)." */
  summary: string;
  runIds: string[];
  version: 'pinned' | 'latest';
}

/** The assistant's reply. */
export interface AskReply {
  answer: string;
  /** Which path answered. */
  via: 'matcher' | 'model';
  /** The query (or action) used, e.g. `failures`, `why`, `reopen`. */
  intent: string;
  proposal?: Proposal;
}
