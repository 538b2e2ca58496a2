const LF = 10;
const QUOTE = 34;

/**
 * Counts finished lines in streamed bytes, chunk by chunk. For CSV a
 * newline inside a quoted field is not a row end; an escaped quote (`""`)
 * toggles twice, so tracking the quote parity across chunks is enough.
 */
export function lineCounter(csv: boolean): (chunk: Uint8Array) => number {
  let inQuotes = false;
  return (chunk) => {
    let n = 0;
    for (const byte of chunk) {
      if (csv && byte === QUOTE) inQuotes = !inQuotes;
      else if (byte === LF && !inQuotes) n++;
    }
    return n;
  };
}
