/**
 * What every benchmark scenario reports, and how the figures of a process are read (its own via
 * `process.resourceUsage`, a worker process's from /proc).
 */
import { readFileSync, readdirSync } from 'node:fs';

/** One scenario's figures; `seconds` is wall time from start to the last output checked. */
export interface Result {
  scenario: string;
  /** Words carried through (all documents'): the unit ratios between scenarios are taken per. */
  words: number;
  seconds: number;
  /** Messages (Trellis: published rows) or jobs (peers) the scenario moved. */
  messages: number;
  exact: boolean;
  /** Highest peak RSS (MB) of any one process of the scenario. */
  peakRssMb: number;
  /** CPU seconds of the scenario's Node processes (its own and its worker processes'). */
  cpuSeconds: number;
  /** CPU seconds the Postgres server spent (its backends, from pg_stat_activity pids' /proc), when measured. */
  pgCpuSeconds?: number;
  /** CPU seconds Redis spent meanwhile (INFO cpu, measured by the parent around the scenario). */
  redisCpuSeconds?: number;
  worstPingMs?: number;
  /** Why the scenario produced no figures (its process exited with an error). */
  failed?: string;
  /** 1-minute load average when the scenario started. */
  load?: number;
}

/** `n` distinct words on one line, starting at `from`: one branch per word. */
export function document(n: number, from = 0): string {
  return Array.from({ length: n }, (_, i) => `w${(i + from).toString(36)}`).join(' ');
}

/** Peak RSS (MB) of this process. */
export const ownPeakRssMb = (): number => Math.round(process.resourceUsage().maxRSS / 1024);

/** CPU seconds (user + system) of this process so far. */
export function ownCpu(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** Peak and current RSS (MB) and CPU seconds of a live process, from /proc. */
export function procFigures(pid: number): { peakRssMb: number; rssMb: number; cpuSeconds: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return { peakRssMb: Math.round(kb('VmHWM') / 1024), rssMb: Math.round(kb('VmRSS') / 1024), cpuSeconds: (Number(stat[11]) + Number(stat[12])) / 100 };
}

/** CPU seconds (user + system) of every `postgres` process on this machine, from /proc. */
export function postgresCpuSeconds(): number {
  let total = 0;
  for (const entry of readDirSafe('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const f = stat.split(') ')[1]?.split(' ') ?? [];
      // utime, stime, and the reaped children's cutime, cstime (backends that exited meanwhile).
      total += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
    } catch {
      // The process exited between the listing and the read.
    }
  }
  return total;
}

function readDirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
