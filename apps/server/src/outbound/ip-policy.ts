import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Range = readonly [prefix: string, description: string];

// Cloud metadata endpoints: AWS/GCP/Azure/OpenStack (169.254.169.254), AWS over IPv6
// (fd00:ec2::254), Alibaba (100.100.100.200), AWS ECS task metadata (169.254.170.2) and
// Azure's WireServer (168.63.129.16, which sits in public space and so needs naming here).
const METADATA_ADDRESSES: ReadonlySet<string> = new Set([
  '169.254.169.254',
  '169.254.170.2',
  '100.100.100.200',
  '168.63.129.16',
  'fd00:ec2::254',
]);

// IPv4 special-purpose registry (RFC 6890 and successors), most specific first where they nest.
const V4_RANGES: readonly Range[] = [
  ['0.0.0.0/8', 'an unspecified ("this network") address'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a carrier-grade NAT (CGNAT) address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'a reserved (IETF protocol assignment) address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.88.99.0/24', 'a reserved (6to4 relay anycast) address'],
  ['192.168.0.0/16', 'a private address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['255.255.255.255/32', 'a broadcast address'],
  ['240.0.0.0/4', 'a reserved address'],
];

// IPv6 ranges that are refused outright (RFC 4291, 4193, 3849, 9637, 5180, 6666, 8215).
const V6_RANGES: readonly Range[] = [
  ['::/128', 'an unspecified address'],
  ['::1/128', 'a loopback address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local (deprecated) address'],
  ['fc00::/7', 'a unique local (ULA, private) address'],
  ['ff00::/8', 'a multicast address'],
  ['100::/64', 'a discard-only address'],
  ['2001:db8::/32', 'a documentation address'],
  ['3fff::/20', 'a documentation address'],
  ['2001:2::/48', 'a benchmarking address'],
  ['64:ff9b:1::/48', 'a local-use NAT64 address'],
];

const V4_PARSED = V4_RANGES.map(([cidr, text]) => [ipaddr.IPv4.parseCIDR(cidr), text] as const);
const V6_PARSED = V6_RANGES.map(([cidr, text]) => [ipaddr.IPv6.parseCIDR(cidr), text] as const);
const V6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/** Describes why an IP address must not be contacted ("a loopback address"), or undefined when it is public. */
export function describeUnsafeAddress(address: string): string | undefined {
  const version = isIP(address);
  if (version === 4) return describeV4(ipaddr.IPv4.parse(address));
  if (version === 6) return describeV6(ipaddr.IPv6.parse(address));
  return 'not a valid IP address';
}

/** Formats an address for reasons: IPv4 dotted, IPv6 in its RFC 5952 short form. */
export function formatAddress(address: string): string {
  const version = isIP(address);
  if (version === 4) return ipaddr.IPv4.parse(address).toString();
  if (version === 6) return ipaddr.IPv6.parse(address).toRFC5952String();
  return address;
}

function describeV4(ip: ipaddr.IPv4): string | undefined {
  const metadata = METADATA_ADDRESSES.has(ip.toString()) ? ' (cloud metadata)' : '';
  for (const [range, text] of V4_PARSED) {
    if (ip.match(range)) return `${text}${metadata}`;
  }
  if (metadata !== '') return 'a cloud metadata address';
  // Anything else ipaddr.js knows as special (AS112, AMT relays) is refused too: fail closed.
  const range = ip.range();
  return range === 'unicast' ? undefined : `a special-purpose (${range}) address`;
}

function describeV6(ip: ipaddr.IPv6): string | undefined {
  const embedded = describeEmbedded(ip.parts);
  if (embedded !== null) return embedded;
  if (METADATA_ADDRESSES.has(ip.toRFC5952String())) {
    const inRange = V6_PARSED.find(([range]) => ip.match(range));
    return `${inRange ? inRange[1] : 'an address'} (cloud metadata)`;
  }
  for (const [range, text] of V6_PARSED) {
    if (ip.match(range)) return text;
  }
  // Only global unicast space (2000::/3) is routable on the internet today (RFC 4291 §2.4).
  if (!ip.match(V6_GLOBAL_UNICAST)) return 'a reserved address';
  const range = ip.range();
  return range === 'unicast' ? undefined : `a special-purpose (${range}) address`;
}

/**
 * IPv6 forms that carry an IPv4 address: the embedded one decides (a mapped 127.0.0.1 reaches
 * the loopback interface). Returns null when `ip` is not such a form, undefined when it is and
 * the embedded address is public.
 */
function describeEmbedded(parts: readonly number[]): string | null | undefined {
  const word = (index: number): number => parts[index] ?? 0;
  const tail = v4FromWords(word(6), word(7));
  const zeros = (from: number, to: number): boolean => parts.slice(from, to).every((part) => part === 0);

  // ::ffff:a.b.c.d, IPv4-mapped (RFC 4291 §2.5.5.2).
  if (zeros(0, 5) && word(5) === 0xffff) return embeddedVerdict('an IPv4-mapped form', tail);
  // ::ffff:0:a.b.c.d, IPv4-translated (RFC 6145).
  if (zeros(0, 4) && word(4) === 0xffff && word(5) === 0) {
    return embeddedVerdict('an IPv4-translated form', tail);
  }
  // ::a.b.c.d, IPv4-compatible (deprecated by RFC 4291 §2.5.5.1); :: and ::1 are handled by the table.
  if (zeros(0, 6) && !(word(6) === 0 && word(7) <= 1)) {
    return embeddedVerdict('an IPv4-compatible form', tail) ?? 'a deprecated IPv4-compatible address';
  }
  // 64:ff9b::a.b.c.d, the NAT64 well-known prefix (RFC 6052).
  if (word(0) === 0x64 && word(1) === 0xff9b && zeros(2, 6)) return embeddedVerdict('a NAT64 form', tail);
  // 2002:AABB:CCDD::/48, 6to4 (RFC 3056): the relay delivers to the embedded IPv4 address.
  if (word(0) === 0x2002) return embeddedVerdict('a 6to4 form', v4FromWords(word(1), word(2)));
  // 2001:0::/32, Teredo (RFC 4380): the client address is stored inverted. Always refused.
  if (word(0) === 0x2001 && word(1) === 0) {
    const client = v4FromWords(word(6) ^ 0xffff, word(7) ^ 0xffff);
    return embeddedVerdict('a Teredo form', client) ?? 'a Teredo tunnel address';
  }
  return null;
}

function embeddedVerdict(form: string, v4: ipaddr.IPv4): string | undefined {
  const reason = describeV4(v4);
  return reason === undefined ? undefined : `${form} of ${v4.toString()}, ${reason}`;
}

function v4FromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}
