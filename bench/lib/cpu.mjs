// CPU accounting: per node process from /proc/<pid>/stat (utime +
// stime), redis from INFO cpu (main thread + its I/O threads, plus reaped children: AOF rewrites),
// the bench process itself (the load generator) from process.cpuUsage(), and the machine's busy
// share of all cores from /proc/stat. Per-process figures are % of ONE core; "machine" is % of
// all cores (100 % = every core saturated).
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { now, round } from './util.mjs';

let clkTck = 100;
try {
  clkTck = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
} catch {
  // default
}

const NPROC = os.availableParallelism ? os.availableParallelism() : os.cpus().length;

/** CPU seconds used so far by `pid` (its threads included), or null when it is gone. */
export function procCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state); utime is field 14, stime field 15
    return (Number(fields[11]) + Number(fields[12])) / clkTck;
  } catch {
    return null;
  }
}

function machineTicks() {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = v[3] + (v[4] || 0);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return { idle, total };
}

async function redisCpuSeconds(redis) {
  // a Redis Cluster client (lib/redis-cluster.mjs): the sum over its masters
  const infos = redis.isCluster
    ? await Promise.all(redis.nodes('master').map((n) => n.info('cpu')))
    : [await redis.info('cpu')];
  const get = (k) =>
    infos.reduce((s, info) => s + Number((info.match(new RegExp(`^${k}:([\\d.]+)`, 'm')) || [])[1] || 0), 0);
  return {
    self: get('used_cpu_sys') + get('used_cpu_user'),
    children: get('used_cpu_sys_children') + get('used_cpu_user_children'),
  };
}

/**
 * Snapshot of every tracked process. `procs` is a map label → pid (or a Child with .pid);
 * `redis` an ioredis client of the bench's redis-server.
 */
export async function cpuSnapshot(procs, redis) {
  const per = {};
  for (const [label, p] of Object.entries(procs)) {
    const pid = typeof p === 'number' ? p : p?.pid;
    per[label] = pid ? procCpuSeconds(pid) : null;
  }
  const u = process.cpuUsage();
  return {
    t: now(),
    per,
    bench: (u.user + u.system) / 1e6,
    redis: redis ? await redisCpuSeconds(redis) : null,
    machine: machineTicks(),
  };
}

/**
 * % of one core per process between two snapshots. A process absent from `a` (spawned later)
 * counts from 0. Returns { <label>: pct, redis, redis_children, bench, machine }.
 */
export function cpuDelta(a, b) {
  const secs = (b.t - a.t) / 1000;
  const out = {};
  for (const label of Object.keys(b.per)) {
    const end = b.per[label];
    const start = a.per[label] ?? 0;
    if (end === null) out[label] = null;
    else out[label] = round(((end - start) / secs) * 100, 0);
  }
  if (a.redis && b.redis) {
    out.redis = round(((b.redis.self - a.redis.self) / secs) * 100, 0);
    const ch = b.redis.children - a.redis.children;
    if (ch > 0) out.redis_children = round((ch / secs) * 100, 0);
  }
  out.bench = round(((b.bench - a.bench) / secs) * 100, 0);
  const dt = b.machine.total - a.machine.total;
  out.machine = dt > 0 ? round((1 - (b.machine.idle - a.machine.idle) / dt) * 100, 0) : null;
  // CPU used by processes the bench did not start (other work on the box): contamination
  if (out.machine !== null) {
    const ours = Object.values(out).reduce((s, v) => s + (v ?? 0), 0) - out.machine;
    out.other = Math.max(0, round(out.machine * NPROC - ours, 0));
  }
  return out;
}

/** One-line summary: "api 98%, redis 70%, sink 25%, bench 30%, machine 95%". */
export function cpuLine(cpu) {
  if (!cpu) return '';
  return Object.entries(cpu)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k} ${v}%`)
    .join(', ');
}

export function machineInfo() {
  const cpus = os.cpus();
  return {
    nproc: os.availableParallelism ? os.availableParallelism() : cpus.length,
    cpu_model: cpus[0]?.model ?? 'unknown',
    memory_gib: round(os.totalmem() / 2 ** 30, 1),
    kernel: os.release(),
    node: process.version,
  };
}

/** Busy share (%) of all cores over `ms`, before the bench starts anything: other load on the box. */
export async function backgroundLoad(ms = 1000) {
  const a = machineTicks();
  await new Promise((r) => setTimeout(r, ms));
  const b = machineTicks();
  const dt = b.total - a.total;
  return dt > 0 ? round((1 - (b.idle - a.idle) / dt) * 100, 0) : null;
}
