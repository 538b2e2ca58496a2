-- CreateIndex
CREATE INDEX "InterceptionRecord_hostError_receivedAt_idx" ON "InterceptionRecord"("hostError", "receivedAt");
