'use client';

import { useRouter } from 'next/navigation';
import { useActionState, useEffect, useRef, useState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { buttonClass } from '@/app/components/button-class';
import { idle } from '@/app/components/form-state';
import { isTyping } from '@/app/components/approvals/use-queue-keys';
import { decideAction } from './actions';
import { EditForm } from './edit-form';

type Props = {
  ticketId: string;
  contextIdentity: string | null;
  target: unknown;
  /** Normalized `$target…` paths the host redacted. */
  redactedPaths: string[];
  /** False for a transform-forbidden point (§4.3): no "approve with edit". */
  editable: boolean;
  /** The ticket's deadline (ISO 8601): from then on nothing can be decided. */
  deadline: string;
};

/**
 * True from the deadline on, without a reload; then the page is refreshed
 * every few seconds until the expiry has been recorded and the page shows it.
 */
function useDeadlinePassed(deadline: string): boolean {
  const router = useRouter();
  const end = Date.parse(deadline);
  const [passed, setPassed] = useState(false);
  useEffect(() => {
    const left = end - Date.now();
    if (left <= 0) {
      setPassed(true);
      return;
    }
    const id = setTimeout(() => setPassed(true), Math.min(left, 2 ** 31 - 1));
    return () => clearTimeout(id);
  }, [end]);
  useEffect(() => {
    if (!passed) return;
    const id = setInterval(() => router.refresh(), 3000);
    return () => clearInterval(id);
  }, [passed, router]);
  return passed;
}

/**
 * The decision, always in view: Approve, Approve with edit, Reject. Every
 * form echoes the identity that was displayed (§9). Keys: a focuses
 * Approve (Enter confirms), e opens the edit, r opens the reject reason.
 */
export function DecisionPanel(props: Props) {
  const router = useRouter();
  const [state, action] = useActionState(decideAction, idle);
  const [mode, setMode] = useState<'choose' | 'edit' | 'reject'>('choose');
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  // Set once the shortcuts listen (tests and impatient keyboards wait for it).
  const [ready, setReady] = useState(false);
  const late = useDeadlinePassed(props.deadline);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e)) {
        if (e.key === 'Escape') setMode('choose');
        return;
      }
      if (late) return;
      if (e.key === 'a') {
        setMode('choose');
        requestAnimationFrame(() => document.getElementById('approve-button')?.focus());
      } else if (e.key === 'e' && props.editable) setMode('edit');
      else if (e.key === 'r') {
        setMode('reject');
        requestAnimationFrame(() => reasonRef.current?.focus());
      } else if (e.key === 'Escape') setMode('choose');
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    setReady(true);
    return () => window.removeEventListener('keydown', onKey);
  }, [props.editable, late]);

  const hidden = (
    <>
      <input type="hidden" name="ticketId" value={props.ticketId} />
      <input type="hidden" name="contextIdentity" value={props.contextIdentity ?? ''} />
      <input type="hidden" name="identityNull" value={props.contextIdentity === null ? '1' : '0'} />
    </>
  );

  // Decided elsewhere or expired: no form is worth showing, only the way to the truth.
  const settled =
    state.status === 'error' &&
    ['already_decided', 'expired', 'not_found'].includes(state.code ?? '');

  if (late && !settled) {
    return (
      <div className="space-y-3" data-keys={ready ? 'ready' : undefined}>
        <p
          role="alert"
          data-testid="deadline-passed"
          className="rounded-md border border-slate-300 bg-slate-50 px-3 py-2 text-sm text-slate-800"
        >
          The deadline passed: this ticket can no longer be decided, and the agent is told{' '}
          <code className="font-mono">unresolved</code>.
        </p>
        <div className="flex flex-wrap gap-2">
          <button type="button" disabled className={buttonClass('primary')}>
            Approve
          </button>
          {props.editable && (
            <button type="button" disabled className={buttonClass('secondary')}>
              Approve with edit…
            </button>
          )}
          <button type="button" disabled className={buttonClass('danger')}>
            Reject…
          </button>
        </div>
      </div>
    );
  }

  return (
    <div className="space-y-3" data-keys={ready ? 'ready' : undefined}>
      {state.status === 'error' && (
        <div
          role="alert"
          data-code={state.code}
          className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800"
        >
          {state.message}
          {(settled || state.code === 'identity_stale') && (
            <button
              type="button"
              onClick={() => router.refresh()}
              className="ml-1 font-medium underline"
            >
              Reload the ticket
            </button>
          )}
        </div>
      )}
      {mode === 'choose' && !settled && (
        <div className="flex flex-wrap gap-2">
          <form action={action} aria-label="Approve">
            {hidden}
            <input type="hidden" name="outcome" value="approve" />
            <SubmitButton id="approve-button" pendingLabel="Approving…" aria-keyshortcuts="a">
              Approve <Key k="a" />
            </SubmitButton>
          </form>
          {props.editable && (
            <button
              type="button"
              className={buttonClass('secondary')}
              onClick={() => setMode('edit')}
              aria-keyshortcuts="e"
            >
              Approve with edit… <Key k="e" />
            </button>
          )}
          <button
            type="button"
            className={buttonClass('danger')}
            aria-keyshortcuts="r"
            onClick={() => {
              setMode('reject');
              requestAnimationFrame(() => reasonRef.current?.focus());
            }}
          >
            Reject… <Key k="r" />
          </button>
        </div>
      )}
      {mode === 'reject' && !settled && (
        <form action={action} aria-label="Reject" className="space-y-2">
          {hidden}
          <input type="hidden" name="outcome" value="reject" />
          <label htmlFor="reject-reason" className="block text-sm font-medium text-slate-800">
            Why reject it?{' '}
            <span className="font-normal text-slate-500">(required, sent to the agent)</span>
          </label>
          <textarea
            id="reject-reason"
            ref={reasonRef}
            name="reason"
            required
            rows={3}
            maxLength={500}
            aria-keyshortcuts="Control+Enter Meta+Enter"
            // Ctrl/Cmd+Enter sends the rejection (issue 14), as in most editors.
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                e.currentTarget.form?.requestSubmit();
              }
            }}
            className="block w-full rounded-md border border-slate-300 px-2.5 py-1.5 text-sm shadow-sm focus:border-indigo-500"
          />
          <div className="flex gap-2">
            <SubmitButton variant="danger" pendingLabel="Rejecting…">
              Reject
            </SubmitButton>
            <button
              type="button"
              className={buttonClass('ghost')}
              onClick={() => setMode('choose')}
            >
              Cancel <Key k="Esc" />
            </button>
          </div>
        </form>
      )}
      {mode === 'edit' && !settled && (
        <EditForm
          action={action}
          hidden={hidden}
          target={props.target}
          redactedPaths={props.redactedPaths}
          onCancel={() => setMode('choose')}
        />
      )}
    </div>
  );
}

/** The shortcut, shown but not part of the button's name (aria-keyshortcuts says it). */
export function Key({ k }: { k: string }) {
  return (
    <kbd
      aria-hidden
      className="ml-1 rounded border border-current/30 px-1 font-sans text-[10px] opacity-70"
    >
      {k}
    </kbd>
  );
}
