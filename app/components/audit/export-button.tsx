'use client';

import { useRef, useState } from 'react';
import { buttonClass } from '@/app/components/button-class';
import { lineCounter } from './line-counter';

type Progress = { rows: number; bytes: number; total: number | null };
type State =
  | { kind: 'idle' }
  | { kind: 'running'; format: string; progress: Progress }
  | { kind: 'done'; rows: number; filename: string }
  | { kind: 'error'; message: string };

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function filenameOf(res: Response, fallback: string): string {
  const cd = res.headers.get('content-disposition') ?? '';
  return /filename="([^"]+)"/.exec(cd)?.[1] ?? fallback;
}

/**
 * Export as JSONL or CSV. The links work without JavaScript; with it the
 * file is fetched as a stream so that rows and bytes received (of the
 * server's `X-Total-Count`) are shown while a large export runs, then saved.
 */
export function ExportButtons({ href, label = 'Export' }: { href: string; label?: string }) {
  const [state, setState] = useState<State>({ kind: 'idle' });
  const abort = useRef<AbortController | null>(null);
  const urlFor = (format: string) => `${href}${href.includes('?') ? '&' : '?'}format=${format}`;

  async function run(format: 'jsonl' | 'csv') {
    const controller = new AbortController();
    abort.current = controller;
    const progress: Progress = { rows: 0, bytes: 0, total: null };
    setState({ kind: 'running', format, progress: { ...progress } });
    try {
      const res = await fetch(urlFor(format), { signal: controller.signal });
      if (!res.ok || !res.body) {
        const body = await res.json().catch(() => null);
        throw new Error(body?.error?.message ?? `The export failed (HTTP ${res.status}).`);
      }
      const total = res.headers.get('x-total-count');
      progress.total = total === null ? null : Number(total);
      const count = lineCounter(format === 'csv');
      const parts: Uint8Array[] = [];
      const reader = res.body.getReader();
      let lines = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
        lines += count(value);
        progress.bytes += value.byteLength;
        // Neither the CSV header line nor the JSONL export's header line
        // (the signed tree head, docs/verifying.md) is a row.
        progress.rows = Math.max(lines - 1, 0);
        setState({ kind: 'running', format, progress: { ...progress } });
      }
      const filename = filenameOf(res, `audit.${format}`);
      const blob = new Blob(parts as BlobPart[], { type: res.headers.get('content-type') ?? '' });
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = filename;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      // The JSONL export ends with its end line (the counts), not a row either.
      const rows = format === 'csv' ? progress.rows : Math.max(progress.rows - 1, 0);
      setState({ kind: 'done', rows, filename });
    } catch (err) {
      if (controller.signal.aborted) setState({ kind: 'idle' });
      else setState({ kind: 'error', message: (err as Error).message });
    } finally {
      abort.current = null;
    }
  }

  const running = state.kind === 'running';
  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="export">
      {(['jsonl', 'csv'] as const).map((format) => (
        <a
          key={format}
          href={urlFor(format)}
          download
          aria-disabled={running}
          className={buttonClass('secondary', running ? 'pointer-events-none opacity-60' : '')}
          onClick={(e) => {
            e.preventDefault();
            if (!running) void run(format);
          }}
        >
          {label} {format.toUpperCase()}
        </a>
      ))}
      <div role="status" aria-live="polite" className="text-xs text-slate-600">
        {state.kind === 'running' && (
          <span className="inline-flex items-center gap-2">
            {state.progress.total ? (
              <progress
                className="h-2 w-32"
                max={state.progress.total}
                value={state.progress.rows}
                aria-label="Export progress"
              />
            ) : null}
            <span data-testid="export-progress">
              {state.progress.rows.toLocaleString('en-US')}
              {state.progress.total !== null &&
                ` of ${state.progress.total.toLocaleString('en-US')}`}{' '}
              rows · {formatBytes(state.progress.bytes)}
            </span>
            <button
              type="button"
              className="rounded px-1 text-indigo-700 hover:bg-indigo-50"
              onClick={() => abort.current?.abort()}
            >
              Cancel
            </button>
          </span>
        )}
        {state.kind === 'done' && (
          <span data-testid="export-done">
            Saved {state.filename} ({state.rows.toLocaleString('en-US')} rows)
          </span>
        )}
        {state.kind === 'error' && (
          <span role="alert" className="font-medium text-red-700">
            {state.message}
          </span>
        )}
      </div>
    </div>
  );
}
