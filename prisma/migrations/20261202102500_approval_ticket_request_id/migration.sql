-- AlterTable
ALTER TABLE "ApprovalTicket" ADD COLUMN     "requestId" TEXT;
