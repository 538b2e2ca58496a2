import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { moduleLogger } from '../logger';
import { LINK_CONFIRM_ACTION, LINK_DECLINE_ACTION } from './link-blocks';
import { confirmSlackLink, declineSlackLink } from './link';
import { ephemeral, replaceOriginal } from './respond';

/**
 * The buttons of the link confirmation DM (link-blocks.ts). Reached only
 * after the signature and the workspace were checked (interactions.ts); the
 * pressing user's id comes from that signed payload.
 */

const log = moduleLogger('slack');

export function isLinkAction(actionId: unknown): boolean {
  return actionId === LINK_CONFIRM_ACTION || actionId === LINK_DECLINE_ACTION;
}

export async function linkPress(
  db: PrismaClient,
  p: { user?: { id?: string }; response_url?: string },
  action: { action_id?: string; value?: string },
): Promise<object> {
  const input = { token: action.value, slackUserId: p.user?.id ?? '' };
  const result =
    action.action_id === LINK_CONFIRM_ACTION
      ? await confirmSlackLink(db, input)
      : await declineSlackLink(db, input);
  log.info(
    { action: action.action_id, ok: result.ok, slackUserId: input.slackUserId },
    'slack link press',
  );
  // Done: the DM's buttons are replaced by the outcome. Refused: the DM stays
  // as it was (a press by the right member may still follow) and only the
  // presser is told why.
  return result.ok
    ? replaceOriginal(p.response_url, result.text)
    : ephemeral(p.response_url, result.text);
}
