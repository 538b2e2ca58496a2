/**
 * Next calls register() once per server process, before the first request.
 * Server code is imported behind the runtime guard, written exactly like
 * this so the edge variant of the file compiles to nothing (Turbopack also
 * builds one, and it fails on BullMQ): it must not pull in BullMQ, nor reach
 * process.exit.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    try {
      const { boot } = await import('./lib/server/boot');
      await boot();
    } catch (err) {
      // If register() throws, Next stays up and answers 500 to everything:
      // stop instead, with the reason.
      const { log } = await import('./lib/server/logger');
      const code = (err as { code?: unknown } | null)?.code;
      log.fatal(
        { module: 'boot', code },
        `start failed: ${err instanceof Error ? err.message : String(err)}`,
      );
      process.exit(1);
    }
  }
}
