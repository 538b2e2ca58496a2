import 'server-only';

/**
 * Imported by the fan-out jobs so every entry is registered before they run.
 * One import line per part (webhooks, Slack); each module pushes its entry
 * onto `ticketFanout` when imported.
 */
import './callback-fanout';
import '../slack/fanout';
