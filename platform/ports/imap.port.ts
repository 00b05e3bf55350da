/** The IMAP port of the mailbox poller (imap-poll.ts); adapters/imap/ implements it. */

/** What the poller needs from an IMAP server (adapter: adapters/imap/imap-source.ts; tests: a fake). */
export interface ImapSource {
  /** Opens INBOX: its UIDVALIDITY. */
  open(): Promise<{ uidValidity: string }>;
  /** Messages with UID > afterUid, in UID order, at most `limit`. */
  fetchAfter(afterUid: number, limit: number): Promise<{ uid: number; source: Buffer }[]>;
  close(): Promise<void>;
}

export interface ImapLogin {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  password: string;
}
export type ImapSourceFactory = (login: ImapLogin) => ImapSource;
