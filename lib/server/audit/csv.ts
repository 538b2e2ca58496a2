/**
 * RFC 4180 CSV fields. A text field that a spreadsheet would run as a
 * formula (`=`, `+`, `-`, `@`, tab, CR first) gets a leading `'`: reasons
 * and agent ids come from hosts, and an export must not execute on open.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

export function csvField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV line, CRLF-terminated as RFC 4180 says. */
export function csvLine(
  values: ReadonlyArray<string | number | boolean | null | undefined>,
): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
