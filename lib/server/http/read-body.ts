import 'server-only';
import { parseJsonText, ValueDomainError } from '@checkpoint/agent-hooks';
import { AppError } from './api-error';

/**
 * The one body reader: every endpoint that reads a body goes through
 * `readBodyBytes` (the size guard), every JSON endpoint through
 * `readJsonText` + `parseJsonBody`, so the limits, the decoding and the
 * codes are the same everywhere: 413 `payload_too_large`, 415
 * `unsupported_media_type`, 400 `json_invalid`, 400 `value_domain`.
 */

/** Default request body cap; routes that take more say so. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** True for `application/json` and `application/*+json` (parameters ignored). */
export function isJsonType(contentType: string | null): boolean {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
}

const tooLarge = (maxBytes: number) =>
  new AppError('payload_too_large', `The body is larger than ${maxBytes} bytes.`);

/**
 * Reads a request body's bytes, refusing it past `maxBytes`: on the declared
 * length first (before reading anything), then again while streaming
 * (chunked bodies declare none).
 */
export async function readBodyBytes(req: Request, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (req.body) {
    const reader = req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks);
}

/**
 * The body as UTF-8 text, size-guarded. `fatal`: bytes that are not UTF-8
 * are refused rather than silently replaced (§4.4), so what is stored or
 * hashed is what the sender sent.
 */
export async function readBodyText(req: Request, maxBytes: number): Promise<string> {
  const bytes = await readBodyBytes(req, maxBytes);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new AppError('json_invalid', 'The body is not valid UTF-8.');
  }
}

/** 415 unless the request says it carries JSON. */
export function requireJsonType(req: Request): void {
  if (!isJsonType(req.headers.get('content-type'))) {
    throw new AppError('unsupported_media_type', 'Send the body as application/json.');
  }
}

/**
 * A JSON body as text (callers that check the raw text, like approval
 * intake, need it before any parse): 415 unless JSON, 413 past `maxBytes`,
 * 400 `json_invalid` when it is not UTF-8 or empty.
 */
export async function readJsonText(req: Request, maxBytes: number): Promise<string> {
  requireJsonType(req);
  const text = await readBodyText(req, maxBytes);
  if (!text.trim()) throw new AppError('json_invalid', 'The request body is empty.');
  return text;
}

/**
 * JSON text → value through the engine's raw-text parser: integers beyond
 * ±(2^53−1), duplicate members, lone surrogates and excessive depth are
 * refused on the text, before JSON.parse could round or drop anything
 * (§4.4, §10.2). Text JSON.parse rejects too is `json_invalid`; text that
 * parses but leaves the domain is `value_domain`.
 */
export function parseJsonBody(text: string, maxBytes: number): unknown {
  try {
    return parseJsonText(text, { maxBytes });
  } catch (err) {
    if (!(err instanceof ValueDomainError)) throw err;
    throw jsonFailure(text, err);
  }
}

/** Classifies a parseJsonText failure (also used per line of NDJSON). */
export function jsonFailure(text: string, err: Error): AppError {
  try {
    JSON.parse(text);
  } catch {
    return new AppError('json_invalid', `The body is not valid JSON: ${err.message}`);
  }
  return new AppError('value_domain', err.message);
}

/** Reads and parses a JSON body (the `body` option of `route()`). */
export async function readJsonBody(req: Request, maxBytes: number): Promise<unknown> {
  return parseJsonBody(await readJsonText(req, maxBytes), maxBytes);
}
