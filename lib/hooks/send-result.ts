/**
 * What a record transport (HTTP or in-process) reports for one batch, and
 * how a refusal reaches the host: one record the store refuses for good is
 * dropped and reported, never retried, and never takes good records with it.
 */

/** Why the store refused one record for good: its code, and the member for `nul_character`. */
export type RecordRefusal = {
  /** The drop reason it is counted under (`records_invalid`, `record_conflict`, `http_<status>`). */
  reason: string;
  /** The server's code for this record (e.g. `nul_character`), else `reason`. */
  code: string;
  message: string;
  /** The JSON path of the offending member, when the server names one. */
  path?: string;
};

/** A refusal detail by batch position, as a transport reads it from the answer. */
export type IndexedRefusal = { index: number; code?: string; message?: string; path?: string };

/** What a transport reports for one batch. */
export type SendResult =
  | { ok: true; accepted: number; duplicates: number }
  /** Transient (5xx, network, timeout): the same batch is sent again after a backoff. */
  | { ok: false; retry: true; error: string }
  /**
   * Permanent: drop `indices` of the batch (all of it when absent) and send
   * the rest again. `details` and `message` feed `onRefused`.
   */
  | {
      ok: false;
      retry: false;
      reason: string;
      indices?: number[];
      details?: IndexedRefusal[];
      message?: string;
    };
