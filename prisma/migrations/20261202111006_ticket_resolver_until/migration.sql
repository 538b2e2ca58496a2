-- AlterTable
ALTER TABLE "ApprovalTicket" ADD COLUMN     "resolverUntil" TIMESTAMP(3);
