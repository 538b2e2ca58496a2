import 'server-only';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { config } from '../config';
import {
  type AddressClass,
  type AllowList,
  allowListed,
  classifyAddress,
  parseAllowList,
} from './address-class';
import { WebhookError } from '../webhooks/errors';

/**
 * The SSRF guard for every outbound request to an admin-supplied URL
 * (webhooks, Slack incoming webhooks): https only (plain http only to
 * loopback, behind a development flag), and every address the name resolves
 * to must be public unless allow-listed (WEBHOOKS_ALLOW_HOSTS). The refusals
 * keep their `webhook_*` codes: webhooks are where those URLs are entered.
 * `guardedLookup` repeats the check at connect time, so a name that resolves
 * differently the second time (DNS rebinding) is still refused.
 */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type LookupFn = (hostname: string) => Promise<ResolvedAddress[]>;

export interface GuardOptions {
  allowHttpLoopback: boolean;
  allowList: AllowList;
  /** Name resolution; tests inject answers (private names, rebinding). */
  lookup: LookupFn;
}

export const systemLookup: LookupFn = async (hostname) => {
  const all = await dnsLookup(hostname, { all: true, verbatim: true });
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

let cachedAllow: { raw: string; list: AllowList } | undefined;

export function guardOptionsFromConfig(overrides: Partial<GuardOptions> = {}): GuardOptions {
  const cfg = config();
  if (cachedAllow?.raw !== cfg.WEBHOOKS_ALLOW_HOSTS) {
    cachedAllow = { raw: cfg.WEBHOOKS_ALLOW_HOSTS, list: parseAllowList(cfg.WEBHOOKS_ALLOW_HOSTS) };
  }
  return {
    allowHttpLoopback: cfg.WEBHOOKS_ALLOW_HTTP_LOOPBACK,
    allowList: cachedAllow.list,
    lookup: systemLookup,
    ...overrides,
  };
}

/** Parses and checks the URL's shape (no DNS): what a form can refuse at once. */
export function parseWebhookUrl(raw: string, opts: Pick<GuardOptions, 'allowHttpLoopback'>): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new WebhookError('webhook_url_invalid', 'The webhook URL is not a valid URL.');
  }
  if (url.username || url.password) {
    throw new WebhookError('webhook_url_invalid', 'The webhook URL may not carry credentials.');
  }
  if (url.protocol === 'http:' && !opts.allowHttpLoopback) {
    throw new WebhookError('webhook_url_scheme', 'Webhook URLs must use https.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new WebhookError('webhook_url_scheme', 'Webhook URLs must use https.');
  }
  if (raw.length > 2048)
    throw new WebhookError('webhook_url_invalid', 'The webhook URL is too long.');
  return url;
}

/** Host part without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

/** Throws webhook_url_blocked unless every address may be reached over `protocol`. */
export function checkAddresses(
  hostname: string,
  protocol: string,
  addresses: readonly ResolvedAddress[],
  opts: GuardOptions,
): void {
  if (addresses.length === 0) {
    throw new WebhookError('webhook_dns_failed', `${hostname} resolves to no address.`);
  }
  const nameAllowed = opts.allowList.hosts.has(hostname);
  for (const { address } of addresses) {
    const cls: AddressClass = classifyAddress(address);
    const loopbackOk = cls === 'loopback' && opts.allowHttpLoopback;
    if (protocol === 'http:' && cls !== 'loopback') {
      throw new WebhookError('webhook_url_scheme', 'Plain http is allowed to loopback only.');
    }
    if (cls === 'public' || loopbackOk || nameAllowed || allowListed(opts.allowList, address)) {
      continue;
    }
    throw new WebhookError(
      'webhook_url_blocked',
      `${hostname} resolves to a ${cls.replace('_', '-')} address (${address}), which webhooks may not reach.`,
    );
  }
}

/** Full check: shape, then the name's current addresses. Returns the parsed URL. */
export async function assertWebhookUrl(raw: string, opts: GuardOptions): Promise<URL> {
  const url = parseWebhookUrl(raw, opts);
  const host = bareHost(url);
  await resolveChecked(host, url.protocol, opts);
  return url;
}

export async function resolveChecked(
  host: string,
  protocol: string,
  opts: GuardOptions,
): Promise<ResolvedAddress[]> {
  const v = isIP(host);
  let addresses: ResolvedAddress[];
  if (v !== 0) {
    addresses = [{ address: host, family: v === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await opts.lookup(host);
    } catch {
      throw new WebhookError('webhook_dns_failed', `${host} could not be resolved.`);
    }
  }
  checkAddresses(host, protocol, addresses, opts);
  return addresses;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | Array<{ address: string; family: number }>,
  family?: number,
) => void;

/**
 * A `lookup` for http(s).request: resolves and checks again right before
 * connecting, and hands the socket exactly the checked addresses.
 */
export function guardedLookup(protocol: string, opts: GuardOptions) {
  return (hostname: string, options: { all?: boolean }, cb: LookupCallback): void => {
    const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    resolveChecked(host, protocol, opts).then(
      (addrs) => {
        if (options?.all) cb(null, addrs);
        else cb(null, addrs[0]?.address ?? '', addrs[0]?.family);
      },
      (err: Error) => {
        const e = err as NodeJS.ErrnoException;
        e.code = err instanceof WebhookError ? err.code : 'webhook_dns_failed';
        cb(e, '');
      },
    );
  };
}

/**
 * The rule the guard applies, in words, for the URL fields' hints (issue 14:
 * the hint must say what this deployment allows, not a fixed text).
 */
export function describeUrlRule(opts: Pick<GuardOptions, 'allowHttpLoopback' | 'allowList'>) {
  const scheme = opts.allowHttpLoopback
    ? 'https, or plain http to a loopback address (WEBHOOKS_ALLOW_HTTP_LOOPBACK is on)'
    : 'https only';
  const listed = opts.allowList.hosts.size > 0 || opts.allowList.nets.rules.length > 0;
  const blocked = opts.allowHttpLoopback
    ? 'private and metadata addresses are refused'
    : 'private, loopback and metadata addresses are refused';
  return `${scheme}; ${blocked}${listed ? ' unless listed in WEBHOOKS_ALLOW_HOSTS' : ''}.`;
}
