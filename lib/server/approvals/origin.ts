import 'server-only';
import type { NextRequest } from 'next/server';
import { config } from '../config';

/** Base URL for links we hand out: APP_URL when configured, else the request's own origin. */
export function publicOrigin(req: NextRequest): string {
  const configured = config().APP_URL;
  return (configured ?? req.nextUrl.origin).replace(/\/+$/, '');
}
