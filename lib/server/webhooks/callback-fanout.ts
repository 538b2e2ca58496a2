import 'server-only';
import { ticketFanout } from './fanout';

// Placeholder until the callback/resolver entries land (same commit series).
if (!ticketFanout.some((e) => e.name === 'webhooks')) {
  ticketFanout.push({ name: 'webhooks' });
}
