import 'server-only';
import { escapeMrkdwn } from './blocks';

/**
 * The direct message that asks a Slack member to confirm a link. The
 * buttons carry the one-time token; only the member it was sent to can
 * press them usefully (the interaction's user id must equal the claimed id).
 */

export const LINK_CONFIRM_ACTION = 'checkpoint_link_confirm';
export const LINK_DECLINE_ACTION = 'checkpoint_link_decline';

/** Slack caps a button's plain_text label at 75 characters. */
const BUTTON_TEXT_MAX = 75;

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

export function linkRequestMessage(input: { email: string; token: string; expiresAt: Date }): {
  text: string;
  blocks: object[];
} {
  const email = escapeMrkdwn(clip(input.email, 200));
  const minutes = Math.max(1, Math.round((input.expiresAt.getTime() - Date.now()) / 60_000));
  return {
    text: `Checkpoint: link your Slack account to ${email}?`,
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `The Checkpoint user *${email}* asked to link this Slack account, so that approve and reject buttons in Slack act as them. Press the button only if that is you. It works once, for ${minutes} minutes.`,
        },
      },
      {
        type: 'actions',
        block_id: 'checkpoint_link',
        elements: [
          {
            type: 'button',
            action_id: LINK_CONFIRM_ACTION,
            style: 'primary',
            // plain_text is shown as is: nothing in it is a mention or a link.
            text: {
              type: 'plain_text',
              text: clip(`This is me — link to ${input.email}`, BUTTON_TEXT_MAX),
            },
            value: input.token,
          },
          {
            type: 'button',
            action_id: LINK_DECLINE_ACTION,
            text: { type: 'plain_text', text: 'Not me' },
            value: input.token,
          },
        ],
      },
    ],
  };
}
