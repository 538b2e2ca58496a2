/**
 * Next calls register() once per server process, before the first request.
 * Server code is imported behind the runtime guard: the edge variant of this
 * file must not pull in BullMQ (STACK.md).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  try {
    const { boot } = await import('./lib/server/boot');
    await boot();
  } catch (err) {
    // If register() throws, Next stays up and answers 500 to everything:
    // better to stop with the reason.
    const { log } = await import('./lib/server/logger').catch(() => ({ log: undefined }));
    const detail = err instanceof Error ? err.message : String(err);
    const code = (err as { code?: unknown })?.code;
    if (log) log.fatal({ module: 'boot', code }, `start failed: ${detail}`);
    else console.error(`start failed: ${detail}`);
    process.exit(1);
  }
}
