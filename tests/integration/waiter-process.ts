import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * Another app instance that only waits: a real Node process
 * (tests/integration/waiter-child.ts) on the run's database and the test's
 * ticket-event channel, parking awaitTicket waiters on request. Lines of
 * JSON in both directions.
 */

export type ChildAnswer = {
  id: string;
  state: 'resolved' | 'pending' | null;
  outcome?: string;
};
export type ChildStats = { statements: number; waited: number; live: boolean };

export class WaiterProcess {
  output = '';
  readonly answers = new Map<string, ChildAnswer>();
  private child?: ChildProcess;
  private statsWaiters: Array<(s: ChildStats) => void> = [];

  constructor(private readonly env: Record<string, string>) {}

  async start(): Promise<void> {
    const child = spawn(
      process.execPath,
      ['--conditions=react-server', '--import', 'tsx', 'tests/integration/waiter-child.ts'],
      { env: { ...process.env, LOG_LEVEL: 'warn', ...this.env }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    this.child = child;
    child.stderr?.on('data', (d: Buffer) => {
      this.output += String(d);
    });
    const ready = new Promise<void>((resolve, reject) => {
      child.once('exit', (code) =>
        reject(new Error(`waiter exited with ${code}:\n${this.output}`)),
      );
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
        let msg: Record<string, unknown>;
        try {
          msg = JSON.parse(line);
        } catch {
          this.output += `${line}\n`;
          return;
        }
        if (msg.ready) resolve();
        else if (msg.answer) this.answers.set(String(msg.id), msg.answer as ChildAnswer);
        else if (msg.stats) this.statsWaiters.shift()?.(msg.stats as ChildStats);
      });
    });
    return ready;
  }

  private send(msg: object): void {
    this.child?.stdin?.write(`${JSON.stringify(msg)}\n`);
  }

  wait(id: string, hostId: string, waitMs: number): void {
    this.send({ cmd: 'wait', id, hostId, waitMs });
  }

  /** Drops the ticket-event subscriber's connection (Redis is gone, for this process). */
  disconnect(): void {
    this.send({ cmd: 'disconnect' });
  }

  stats(): Promise<ChildStats> {
    return new Promise((resolve) => {
      this.statsWaiters.push(resolve);
      this.send({ cmd: 'stats' });
    });
  }

  /** Until `pred` holds for its stats (polled every 50 ms), or throws after `ms`. */
  async until(pred: (s: ChildStats) => boolean, ms = 20_000): Promise<ChildStats> {
    const end = Date.now() + ms;
    for (;;) {
      const s = await this.stats();
      if (pred(s)) return s;
      if (Date.now() > end) throw new Error(`waiter stats never matched: ${JSON.stringify(s)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(killer);
  }
}
