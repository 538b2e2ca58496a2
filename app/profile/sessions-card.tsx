import { Card } from '@/app/components/page-header';
import { SubmitButton } from '@/app/components/button';
import { signOutEverywhereAction } from './session-actions';

/** Ends every session of the user: other browsers, lost devices and this one. */
export function SessionsCard() {
  return (
    <Card title="Sessions">
      <p className="mb-3 text-sm text-slate-600">
        Signed in on a computer you no longer use, or lost a device? End every session of your
        account, this one included. Changing your password ends your other sessions too.
      </p>
      <form action={signOutEverywhereAction}>
        <SubmitButton variant="danger" pendingLabel="Signing out…">
          Sign out everywhere
        </SubmitButton>
      </form>
    </Card>
  );
}
