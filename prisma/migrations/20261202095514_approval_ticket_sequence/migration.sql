-- AlterTable
ALTER TABLE "ApprovalTicket" ADD COLUMN     "sequence" INTEGER;
