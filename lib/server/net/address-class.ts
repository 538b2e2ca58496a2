import 'server-only';
import { BlockList, isIP } from 'node:net';

/** Why an address may not be reached by an outbound request (SSRF guard). */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'metadata'
  | 'cgnat'
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'ipv4_mapped';

// Checked in order: the metadata addresses sit inside link-local and ULA ranges.
const RANGES: Array<[Exclude<AddressClass, 'public'>, 'ipv4' | 'ipv6', string, number]> = [
  ['metadata', 'ipv4', '169.254.169.254', 32],
  ['metadata', 'ipv6', 'fd00:ec2::254', 128],
  ['unspecified', 'ipv4', '0.0.0.0', 8],
  ['loopback', 'ipv4', '127.0.0.0', 8],
  ['private', 'ipv4', '10.0.0.0', 8],
  ['private', 'ipv4', '172.16.0.0', 12],
  ['private', 'ipv4', '192.168.0.0', 16],
  ['link_local', 'ipv4', '169.254.0.0', 16],
  ['cgnat', 'ipv4', '100.64.0.0', 10],
  ['multicast', 'ipv4', '224.0.0.0', 4],
  ['reserved', 'ipv4', '192.0.0.0', 24],
  ['reserved', 'ipv4', '192.0.2.0', 24],
  ['reserved', 'ipv4', '198.18.0.0', 15],
  ['reserved', 'ipv4', '198.51.100.0', 24],
  ['reserved', 'ipv4', '203.0.113.0', 24],
  ['reserved', 'ipv4', '240.0.0.0', 4],
  ['unspecified', 'ipv6', '::', 128],
  ['loopback', 'ipv6', '::1', 128],
  // An IPv4-mapped address reaches the IPv4 host behind it; refused whole
  // rather than trusting every stack to unwrap it the same way.
  ['ipv4_mapped', 'ipv6', '::ffff:0:0', 96],
  ['reserved', 'ipv6', '::', 96],
  ['reserved', 'ipv6', '64:ff9b::', 96],
  ['reserved', 'ipv6', '64:ff9b:1::', 48],
  ['reserved', 'ipv6', '100::', 64],
  ['reserved', 'ipv6', '2001::', 32],
  ['reserved', 'ipv6', '2001:db8::', 32],
  ['reserved', 'ipv6', '2002::', 16],
  ['private', 'ipv6', 'fc00::', 7],
  ['link_local', 'ipv6', 'fe80::', 10],
  ['multicast', 'ipv6', 'ff00::', 8],
];

const LISTS = RANGES.map(([cls, type, net, prefix]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, type);
  return { cls, type, list };
});

/** The class of an IP literal; throws on something that is not one. */
export function classifyAddress(ip: string): AddressClass {
  const v = isIP(ip);
  if (v === 0) throw new Error(`not an IP address: ${ip}`);
  const type = v === 4 ? 'ipv4' : 'ipv6';
  for (const r of LISTS) {
    if (r.type === type && r.list.check(ip, type)) return r.cls;
  }
  return 'public';
}

/** Allow-list entries (WEBHOOKS_ALLOW_HOSTS): host names, IPs and CIDRs. */
export interface AllowList {
  hosts: Set<string>;
  nets: BlockList;
}

export function parseAllowList(raw: string): AllowList {
  const hosts = new Set<string>();
  const nets = new BlockList();
  for (const entry of raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean)) {
    const [addr, bits] = entry.split('/');
    const v = isIP(addr ?? '');
    if (v !== 0) {
      const type = v === 4 ? 'ipv4' : 'ipv6';
      const prefix = bits === undefined ? (v === 4 ? 32 : 128) : Number(bits);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > (v === 4 ? 32 : 128)) {
        throw new Error(`WEBHOOKS_ALLOW_HOSTS: bad prefix in ${entry}`);
      }
      nets.addSubnet(addr as string, prefix, type);
    } else {
      hosts.add(entry);
    }
  }
  return { hosts, nets };
}

export function allowListed(list: AllowList, ip: string): boolean {
  const v = isIP(ip);
  return v !== 0 && list.nets.check(ip, v === 4 ? 'ipv4' : 'ipv6');
}
