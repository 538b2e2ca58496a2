/**
 * The §13.1 conformance report: results grouped by declared part, every
 * failure message and every skip reason listed. A claim (§13.3) attaches it.
 */
import type { HarnessDeclaration } from './harness';
import type { CtkRun, VectorResult } from './runner';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function groupByPart(results: VectorResult[]): Map<string, VectorResult[]> {
  const parts = new Map<string, VectorResult[]>();
  for (const r of results) parts.set(r.part, [...(parts.get(r.part) ?? []), r]);
  return new Map([...parts].sort(([a], [b]) => a.localeCompare(b)));
}

export function renderReport(
  run: CtkRun,
  declaration: HarnessDeclaration,
  meta: { vectorsDir: string; generatedAt: Date },
): string {
  const { pass, fail, skip } = run.summary;
  const verdict =
    fail === 0 && pass > 0
      ? 'PASS: every applicable vector passed'
      : `FAIL: ${fail} vector(s) failed`;
  const lines = [
    '# Agent Hooks CTK conformance report',
    '',
    `- Spec: agent-hooks/0.1 (§13.1 report)`,
    `- Host: ${declaration.framework} ${declaration.adapterVersion} (${declaration.sdk})`,
    `- Declared capabilities: ${declaration.capabilities.join(', ')}`,
    `- Postures: tool_seam_host_error: ${declaration.postures.tool_seam_host_error}; buffered_output: ${declaration.buffered_output}`,
    `- Identity provider: ${declaration.identity_provider ?? 'null (identity-unbound)'}`,
    `- Vectors: \`${meta.vectorsDir}\``,
    `- Generated: ${meta.generatedAt.toISOString()}`,
    '',
    `**${verdict}.** ${pass} pass, ${fail} fail, ${skip} skip (${run.results.length} vectors).`,
    '',
    '| Part | Pass | Fail | Skip |',
    '| --- | ---: | ---: | ---: |',
  ];
  const parts = groupByPart(run.results);
  for (const [part, rs] of parts) {
    const n = (s: string) => rs.filter((r) => r.status === s).length;
    lines.push(`| ${cell(part)} | ${n('pass')} | ${n('fail')} | ${n('skip')} |`);
  }
  for (const [part, rs] of parts) {
    lines.push(
      '',
      `## ${part}`,
      '',
      '| Vector | Status | Title | Notes |',
      '| --- | --- | --- | --- |',
    );
    for (const r of rs) {
      const notes =
        r.status === 'fail' ? r.failures.join('<br>') : r.status === 'skip' ? (r.detail ?? '') : '';
      lines.push(`| ${r.id} | ${r.status.toUpperCase()} | ${cell(r.title)} | ${cell(notes)} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The `--json` document: exactly `{summary, results}` and nothing else. */
export function toJson(run: CtkRun): string {
  const results = run.results.map(({ id, title, part, status, failures, detail }) => ({
    id,
    title,
    part,
    status,
    failures,
    detail,
  }));
  return JSON.stringify({ summary: run.summary, results });
}

/** One human line per vector; failures indented below. */
export function formatLine(r: VectorResult): string {
  const head = `${r.status.toUpperCase().padEnd(4)} ${r.id}`;
  if (r.status === 'skip') return `${head} (${r.detail})`;
  if (r.status === 'pass') return head;
  return [head, ...r.failures.map((f) => `       - ${f}`)].join('\n');
}
