import 'server-only';
import { readFileSync } from 'node:fs';
import os from 'node:os';

/**
 * Who holds a DATA_DIR lock (data-dir-lock.ts), and whether that process
 * still runs. Kept apart from the locking protocol so each reads on its own.
 */

export interface LockOwner {
  pid: number;
  /** Wall-clock start of the owner, ms since the epoch (for people reading the file). */
  startedAt: number;
  hostname: string;
  /**
   * Linux: the kernel's boot id and the owner's start time in clock ticks
   * since boot. Together with the pid they name one process exactly, so a
   * reused pid is told apart with no wall clock involved.
   */
  bootId?: string;
  startTicks?: number;
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/<pid>/stat (start time, ticks since boot), or undefined off Linux. */
export function procStartTicks(pid: number | 'self'): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

/** This process, as it is written into a lock file. */
export function currentOwner(): LockOwner {
  return {
    pid: process.pid,
    startedAt: Math.round(Date.now() - process.uptime() * 1000),
    hostname: os.hostname(),
    bootId: bootId(),
    startTicks: procStartTicks('self'),
  };
}

/** The owner recorded in a lock file's text; null for anything unreadable. */
export function parseOwner(text: string): LockOwner | null {
  try {
    const owner = JSON.parse(text) as LockOwner;
    return owner && Number.isInteger(owner.pid) ? owner : null;
  } catch {
    return null;
  }
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the recorded owner (another process than this one) still runs;
 * when in doubt, yes (fail closed).
 */
export function otherProcessIsAlive(owner: LockOwner): boolean {
  if (owner.hostname !== os.hostname()) {
    // Another machine or container sharing the volume: its pids mean
    // nothing here.
    return true;
  }
  if (!pidExists(owner.pid)) return false;
  const boot = bootId();
  if (owner.bootId === undefined || owner.startTicks === undefined || boot === undefined) {
    return true;
  }
  // After a reboot, or with another start time, the pid belongs to someone else now.
  return owner.bootId === boot && procStartTicks(owner.pid) === owner.startTicks;
}
