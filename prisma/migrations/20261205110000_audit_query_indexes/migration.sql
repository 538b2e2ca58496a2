-- Issue 16 items 1–3: every index of the records table against the audit
-- browser's queries, EXPLAINed at 1M records. Partial where the filter is
-- selective, so the rows nobody filters for cost no index entry.

-- The session filter sorts by receivedAt like every search; (sessionId, sequence)
-- made a large session's search fetch and sort the whole session. The timeline
-- itself pages by the unique (hostId, sessionId, sequence, dedupeKey) index.
DROP INDEX "InterceptionRecord_sessionId_sequence_idx";
CREATE INDEX "InterceptionRecord_sessionId_receivedAt_idx" ON "InterceptionRecord"("sessionId", "receivedAt");

-- Point and decision together (the common pair, and what a point filter is
-- usually combined with) newest first; a point alone is served by the receivedAt
-- scan for its page and by this index's prefix for its count.
DROP INDEX "InterceptionRecord_interceptionPoint_receivedAt_idx";
CREATE INDEX "InterceptionRecord_interceptionPoint_decision_receivedAt_idx" ON "InterceptionRecord"("interceptionPoint", "decision", "receivedAt");

-- The host filter, newest first.
CREATE INDEX "InterceptionRecord_hostId_receivedAt_idx" ON "InterceptionRecord"("hostId", "receivedAt");

-- Only "host errors only" (hostError true) is a filter: the false rows need no entry.
DROP INDEX "InterceptionRecord_hostError_receivedAt_idx";
CREATE INDEX "InterceptionRecord_hostError_idx" ON "InterceptionRecord"("receivedAt") WHERE "hostError";

-- A host's own failures near a session (timeline.ts hostFailuresDuring): was a
-- parallel scan of the whole table on every session view.
CREATE INDEX "InterceptionRecord_hostFailure_idx" ON "InterceptionRecord"("hostId", "receivedAt") WHERE "hostFailure";

-- resolved-by approval / rejection (rare); "none" is most rows and needs no index.
CREATE INDEX "InterceptionRecord_resolvedBy_receivedAt_idx" ON "InterceptionRecord"("resolvedBy", "receivedAt") WHERE ("resolvedBy" IS NOT NULL);

-- fold-truncated true (rare); false is most rows.
CREATE INDEX "InterceptionRecord_foldTruncated_idx" ON "InterceptionRecord"("receivedAt") WHERE "foldTruncated";

-- Every mode but the usual one.
CREATE INDEX "InterceptionRecord_mode_receivedAt_idx" ON "InterceptionRecord"("mode", "receivedAt") WHERE ("mode" <> 'enforce');

-- A ticket's record (approvals/inbox.ts: ticketId = … OR (host, session,
-- sequence)) and the ON DELETE SET NULL of a deleted ticket were parallel
-- scans of the whole table: few records carry a ticket.
CREATE INDEX "InterceptionRecord_ticketId_idx" ON "InterceptionRecord"("ticketId") WHERE ("ticketId" IS NOT NULL);

-- The session-wide structure check (integrity-structure.ts) and jump-to-time
-- read only these columns: an index-only scan in id order instead of reading
-- every heap row (record JSON included) of a 100k-record session per view.
CREATE INDEX "InterceptionRecord_structure_idx" ON "InterceptionRecord"("hostId", "sessionId", "id", "sequence", "receivedAt", "chainHash", "prevHash") WHERE (NOT "hostFailure");
