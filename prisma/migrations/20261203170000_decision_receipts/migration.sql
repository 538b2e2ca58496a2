-- Signed approval receipts (issue 13 item 2): the compact JWS over each
-- decision, and how the decider authenticated, which the receipt's claims
-- need and nothing else records. Both nullable: decisions made before this
-- migration get their receipt issued on first read.
ALTER TABLE "Decision" ADD COLUMN "receipt" TEXT;
ALTER TABLE "Decision" ADD COLUMN "deciderAuth" TEXT;
