import 'server-only';
import { ApiError } from './api-error';

/** Default request body cap; routes that take more say so. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** True for `application/json` and `application/*+json` (parameters ignored). */
export function isJsonType(contentType: string | null): boolean {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
}

/**
 * Reads a request body's bytes, refusing it past `maxBytes`: on the declared
 * length first, then again while streaming (chunked bodies declare none).
 */
export async function readBodyBytes(
  req: Request,
  maxBytes: number,
  tooLarge: () => Error = () =>
    new ApiError(413, 'payload_too_large', `The body is larger than ${maxBytes} bytes.`),
): Promise<Buffer> {
  const declared = Number(req.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
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
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks);
}

/** 415 unless the request says it carries JSON. */
export function requireJsonType(req: Request): void {
  if (!isJsonType(req.headers.get('content-type'))) {
    throw new ApiError(415, 'unsupported_media_type', 'Send the body as application/json.');
  }
}

/**
 * Reads a JSON body: 415 unless it says JSON, 413 past `maxBytes`, 400 when
 * it does not parse.
 */
export async function readJsonBody(req: Request, maxBytes: number): Promise<unknown> {
  requireJsonType(req);
  const text = new TextDecoder('utf-8', { fatal: false }).decode(
    await readBodyBytes(req, maxBytes),
  );
  if (!text.trim()) throw new ApiError(400, 'invalid_request', 'The request body is empty.');
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid_request', 'The request body is not valid JSON.');
  }
}
