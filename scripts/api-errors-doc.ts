/** Writes docs/api-errors.md from the error-code table (lib/server/http/error-codes.ts). */
import { writeFileSync } from 'node:fs';
import { renderErrorCodesMarkdown } from '../lib/server/http/error-codes-doc';

writeFileSync(new URL('../docs/api-errors.md', import.meta.url), renderErrorCodesMarkdown());
