-- Issue 14, bug 1: which of the host's redaction paths a ticket's intake
-- checked, and which of them matched nothing in the request (a path that
-- matches nothing hides nothing).
ALTER TABLE "ApprovalTicket"
  ADD COLUMN "redactionChecked" TEXT[] NOT NULL DEFAULT '{}',
  ADD COLUMN "redactionMisses" TEXT[] NOT NULL DEFAULT '{}';
