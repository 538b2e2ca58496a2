import { parentPort, workerData } from 'node:worker_threads';
import { type ClaimedHead, LineChecker } from './export-lines';

/**
 * A worker thread of export-file.ts: checks the chunks of lines it is sent
 * (an ArrayBuffer of whole lines and the number of its first line) and
 * answers each chunk's result, or the error that stopped it. One
 * LineChecker per worker, so proof nodes it verified stay known for the
 * next chunk.
 */

const { head, maxFindings, stream } = workerData as {
  head: ClaimedHead | null;
  maxFindings: number;
  stream: number;
};
const checker = new LineChecker(head, maxFindings, stream);
const port = parentPort;

port?.on(
  'message',
  (m: { seq: number; buffer: ArrayBuffer; length: number; firstLine: number }) => {
    try {
      const result = checker.chunk(new Uint8Array(m.buffer, 0, m.length), m.firstLine);
      // The memory goes back to the reader, which reads the next chunks into it.
      port.postMessage({ seq: m.seq, result, buffer: m.buffer }, [m.buffer]);
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      port.postMessage({ seq: m.seq, error: { code: e.code ?? null, message: e.message } });
    }
  },
);
