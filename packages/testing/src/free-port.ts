import { readFileSync } from 'node:fs';
import getPort from 'get-port';

/**
 * The first port of the kernel's ephemeral range (net.ipv4.ip_local_port_range; 32768 by
 * default on Linux, 49152 on other systems, IANA's dynamic range of RFC 6335 §6).
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 20_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/** Ports tried, below the ephemeral range and above the usual local services. */
const FIRST = 20_000;
const TRIES = 64;
const LAST = ephemeralLow() - 1;

function* randomPorts(): Generator<number> {
  for (let i = 0; i < TRIES; i++) yield FIRST + Math.floor(Math.random() * (LAST - FIRST + 1));
}

/**
 * A free TCP port on 127.0.0.1 for a server a test or the bench starts later (often in a child
 * process, which cannot be handed a listening socket).
 *
 * Why not port 0 (the kernel's pick): that pick comes from the ephemeral range, the same range
 * every outgoing connection takes its local port from, so under load (a bench phase opens
 * thousands of connections a second) another socket could hold the port by the time the server
 * binds it — seen as EADDRINUSE in a bench run beside the test suite. A port below that range is
 * never taken by an outgoing connection. The pick is random (processes running side by side do
 * not walk the same sequence); get-port checks that it is free and does not hand it out again in
 * this process for a while. Another process may still take it before the caller binds it.
 */
export function freePort(): Promise<number> {
  return getPort({ host: '127.0.0.1', port: randomPorts() });
}
