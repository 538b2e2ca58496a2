-- AlterTable
ALTER TABLE "ApprovalTicket" ADD COLUMN     "denySet" JSONB;
