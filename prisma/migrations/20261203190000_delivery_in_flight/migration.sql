-- Issue 17: the attempt whose request is on its way. Set just before a
-- callback is sent and cleared when the attempt is recorded, so a worker
-- killed in between leaves a trace: the next run records that attempt as
-- failed (outcome unknown) instead of the delivery log showing one attempt
-- where the receiver saw two.
ALTER TABLE "WebhookDelivery" ADD COLUMN "inFlightAttempt" INTEGER;
