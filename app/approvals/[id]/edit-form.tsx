'use client';

import { type ReactNode, useMemo, useState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { buttonClass } from '@/app/components/button-class';
import {
  formatTargetPath,
  getAt,
  leafPaths,
  lineDiff,
  locationLabel,
  prettyJson,
  type Segment,
  setAt,
  touchesRedacted,
  typeChange,
} from '@/app/components/approvals/target-edit';

type Props = {
  action: (form: FormData) => void;
  hidden: ReactNode;
  target: unknown;
  redactedPaths: string[];
  onCancel: () => void;
};

type Draft = { path: string; segments: Segment[]; text: string };

/**
 * Approve with edit: change one field, or the whole target as JSON; see the
 * diff; confirm. The edit is sent as the transform `{path, value}` (§5.2)
 * with the value as JSON text, which the server re-parses and checks.
 */
export function EditForm({ action, hidden, target, redactedPaths, onCancel }: Props) {
  const leaves = useMemo(
    () => leafPaths(target).map((segments) => ({ segments, path: formatTargetPath(segments) })),
    [target],
  );
  // A leaf under a key outside the §5.2 member names has no path (null): not editable alone.
  const editable = (path: string | null): path is string =>
    path !== null && !touchesRedacted(path, redactedPaths);
  const firstEditable = leaves.find((l) => editable(l.path));
  const unaddressable = leaves.some((l) => l.path === null);
  const [kind, setKind] = useState<'field' | 'json'>(firstEditable ? 'field' : 'json');
  const [field, setField] = useState<Draft>(() => draftFor(firstEditable?.segments ?? [], target));
  const [whole, setWhole] = useState(() => prettyJson(target));
  const [review, setReview] = useState(false);

  const draft: Draft = kind === 'field' ? field : { path: '$target', segments: [], text: whole };
  const parsed = parse(draft.text);
  const redacted = touchesRedacted(draft.path, redactedPaths);
  const after = parsed.ok ? safeSet(target, draft.segments, parsed.value) : null;
  const unchanged = after !== null && prettyJson(after) === prettyJson(target);
  // Allowed, but never silent: a number edited into a string may break the tool.
  const retyped = parsed.ok ? typeChange(getAt(target, draft.segments), parsed.value) : null;
  const retypedNote = retyped && (
    <p role="note" data-testid="edit-type-change" className="text-xs text-amber-800">
      The value changes type ({retyped}): the tool may not accept it. Check this is what you mean.
    </p>
  );
  const problem = !parsed.ok
    ? `Not valid JSON: ${parsed.error}`
    : redacted
      ? kind === 'json'
        ? 'This target has redacted values, so it cannot be replaced whole. Edit a single field instead.'
        : 'This field is redacted: it was never shown to you, so it cannot be edited.'
      : after === null
        ? 'That path does not resolve against the target.'
        : unchanged
          ? 'The edit changes nothing; use Approve instead.'
          : null;

  if (review && after !== null && !problem) {
    return (
      <form action={action} aria-label="Confirm the edit" className="space-y-2">
        {hidden}
        <input type="hidden" name="outcome" value="edit" />
        <input type="hidden" name="editPath" value={draft.path} />
        <input type="hidden" name="editValue" value={draft.text} />
        <p className="text-sm text-slate-800">
          Approve with this change to <code className="font-mono text-xs">{draft.path}</code>?
        </p>
        <Diff before={prettyJson(target)} after={prettyJson(after)} />
        {retypedNote}
        <div className="flex gap-2">
          <SubmitButton pendingLabel="Approving…" autoFocus>
            Confirm: approve with edit
          </SubmitButton>
          <button type="button" className={buttonClass('ghost')} onClick={() => setReview(false)}>
            Back to the edit
          </button>
        </div>
      </form>
    );
  }

  return (
    <fieldset className="space-y-2" aria-label="Approve with edit">
      <div className="flex gap-1 text-sm" role="tablist">
        {(['field', 'json'] as const).map((k) => (
          <button
            key={k}
            type="button"
            role="tab"
            aria-selected={kind === k}
            onClick={() => setKind(k)}
            className={`rounded-md px-2 py-1 ${kind === k ? 'bg-slate-800 text-white' : 'text-slate-700 hover:bg-slate-100'}`}
          >
            {k === 'field' ? 'One field' : 'Whole target (JSON)'}
          </button>
        ))}
      </div>
      {kind === 'field' ? (
        <>
          <label className="block text-sm font-medium text-slate-800" htmlFor="edit-path">
            Field
          </label>
          <select
            id="edit-path"
            value={field.path}
            onChange={(e) => {
              const leaf = leaves.find((l) => l.path === e.target.value);
              if (leaf) setField(draftFor(leaf.segments, target));
            }}
            className="block w-full rounded-md border border-slate-300 px-2 py-1 font-mono text-xs"
          >
            {leaves.map((l) => (
              <option
                key={l.path ?? locationLabel(l.segments)}
                value={l.path ?? ''}
                disabled={!editable(l.path)}
              >
                {l.path ?? locationLabel(l.segments)}
                {l.path === null ? ' (no §5.2 path)' : editable(l.path) ? '' : ' (redacted)'}
              </option>
            ))}
          </select>
          {unaddressable && (
            <p className="text-xs text-slate-500">
              Fields marked “no §5.2 path” sit under a key with characters other than A-Z, a-z, 0-9,
              _ and -; a transform cannot address them. Replace the whole target instead.
            </p>
          )}
          <JsonArea
            id="edit-value"
            label="New value (JSON)"
            value={field.text}
            rows={3}
            onChange={(text) => setField({ ...field, text })}
          />
        </>
      ) : (
        <JsonArea
          id="edit-target"
          label="New target (JSON)"
          value={whole}
          rows={12}
          onChange={setWhole}
        />
      )}
      <p
        role={problem && parsed.ok ? 'alert' : undefined}
        data-code={problem ? 'edit_problem' : undefined}
        className={`text-xs ${problem ? 'text-red-700' : 'text-slate-500'}`}
      >
        {problem ?? 'Valid JSON. Review the change before approving.'}
      </p>
      {!problem && retypedNote}
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          disabled={Boolean(problem)}
          onClick={() => setReview(true)}
          className={buttonClass('primary')}
        >
          Review change
        </button>
        {parsed.ok && (
          <button
            type="button"
            className={buttonClass('ghost')}
            onClick={() => {
              const text = prettyJson(parsed.value);
              if (kind === 'field') setField({ ...field, text });
              else setWhole(text);
            }}
          >
            Format
          </button>
        )}
        <button type="button" className={buttonClass('ghost')} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </fieldset>
  );
}

/** Only called for addressable segments (the root, or a leaf with a path); else the root. */
function draftFor(segments: Segment[], target: unknown): Draft {
  const path = formatTargetPath(segments);
  const at = path === null ? [] : segments;
  return { segments: at, path: path ?? '$target', text: prettyJson(getAt(target, at)) };
}

function parse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

function safeSet(target: unknown, segments: Segment[], value: unknown): unknown {
  try {
    return setAt(target, segments, value);
  } catch {
    return null;
  }
}

function JsonArea(props: {
  id: string;
  label: string;
  value: string;
  rows: number;
  onChange: (v: string) => void;
}) {
  return (
    <div className="space-y-1">
      <label htmlFor={props.id} className="block text-sm font-medium text-slate-800">
        {props.label}
      </label>
      <textarea
        id={props.id}
        value={props.value}
        rows={props.rows}
        spellCheck={false}
        onChange={(e) => props.onChange(e.target.value)}
        className="block w-full rounded-md border border-slate-300 px-2 py-1.5 font-mono text-xs shadow-sm focus:border-indigo-500"
      />
    </div>
  );
}

function Diff({ before, after }: { before: string; after: string }) {
  const lines = lineDiff(before, after);
  return (
    <pre
      data-testid="edit-diff"
      className="max-h-72 overflow-auto rounded-md border border-slate-200 bg-white py-1 font-mono text-xs leading-5"
    >
      {lines.map((l, i) => (
        <div
          // biome-ignore lint/suspicious/noArrayIndexKey: a diff is positional
          key={i}
          className={
            l.kind === 'add'
              ? 'bg-emerald-50 text-emerald-900'
              : l.kind === 'del'
                ? 'bg-red-50 text-red-900 line-through decoration-red-300'
                : 'text-slate-600'
          }
        >
          <span aria-hidden className="inline-block w-5 select-none text-center text-slate-400">
            {l.kind === 'add' ? '+' : l.kind === 'del' ? '−' : ' '}
          </span>
          <span className="sr-only">
            {l.kind === 'add' ? 'added: ' : l.kind === 'del' ? 'removed: ' : ''}
          </span>
          {l.text}
        </div>
      ))}
    </pre>
  );
}
