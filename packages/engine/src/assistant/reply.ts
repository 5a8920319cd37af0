/** What the assistant answers (assistant/ask.ts), shared with its model path (assistant/model.ts). */

/** An action the assistant proposes (a re-open, or marking runs urgent) and waits for a "yes" on. */
export interface Proposal {
  /** Which action the token stands for. */
  kind: 'reopen' | 'urgent';
  token: string;
  /** Exactly what will happen, e.g. "Re-open 2 runs from member words on the latest saved version (v3)." */
  summary: string;
  runIds: string[];
  /** A re-open's version; absent for marking urgent. */
  version?: 'pinned' | 'latest';
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
