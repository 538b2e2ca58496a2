import { DETAIL_CODES, ERROR_CODES } from './error-codes';

/**
 * docs/api-errors.md, rendered from the one table (error-codes.ts). Written
 * by `npx tsx scripts/api-errors-doc.ts`; tests/unit/error-codes.test.ts
 * fails when the file and the table disagree.
 */
export function renderErrorCodesMarkdown(): string {
  const rows = Object.entries(ERROR_CODES).map(
    ([code, e]) => `| \`${code}\` | ${e.status} | ${e.area} | ${e.when} |`,
  );
  const details = Object.entries(DETAIL_CODES).map(([code, when]) => `| \`${code}\` | ${when} |`);
  return [
    '# API error codes',
    '',
    '<!-- Generated from lib/server/http/error-codes.ts by `npx tsx scripts/api-errors-doc.ts`; do not edit by hand. -->',
    '',
    'Every refusal of the HTTP API (`/api/v1/**`, `/api/audit/export`,',
    '`/api/slack/interactions`, …) is JSON `{"error": {"code", "message", "details"?}}`',
    'with the status below; server actions answer the same codes in their form',
    'state. Branch on `code` (or the status), never on `message`. Each code has',
    'exactly one status. A missing resource is always `not_found` (the message',
    'names its kind); codes name the thing first (`<thing>_invalid`,',
    '`<thing>_required`, `<thing>_taken`).',
    '',
    '| code | status | area | when |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    '## Codes inside `details`',
    '',
    'A `request_invalid` (or a field-named code) from a form carries',
    '`details.fields: {<input>: {code, message}}`; a `records_invalid` carries',
    '`details.errors: [{index, code, message}]`. Besides the codes above',
    '(`json_invalid`, `value_domain`, `nul_character`, …) these appear there:',
    '',
    '| code | when |',
    '| --- | --- |',
    ...details,
    '',
  ].join('\n');
}
