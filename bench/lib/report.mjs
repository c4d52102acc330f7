// The final table (markdown) and the JSON written under bench/results/.
import { fmtRatio } from './util.mjs';

const SHORT = {
  machine: 'm',
  workers: 'w',
  bench: 'gen',
  redis_children: 'aof-fork',
  worker_ms_per_email: 'w ms/email',
  total_ms_per_email: 'all ms/email',
  api_us_per_email: 'api µs/email',
  redis_us_per_email: 'redis µs/email',
};

const CELL_ORDER = [
  'api',
  'workers',
  'redis',
  'redis_children',
  'sink',
  'bench',
  'machine',
  'other',
  'api_us_per_email',
  'redis_us_per_email',
  'worker_ms_per_email',
];

/** "api 98 · redis 70 · sink 25 · gen 30 · m 95 · other 3" (per-worker figures summed in "w"). */
export function cpuCell(cpu) {
  if (!cpu) return '–';
  return CELL_ORDER.filter((k) => cpu[k] !== null && cpu[k] !== undefined)
    .map((k) => `${SHORT[k] ?? k} ${cpu[k]}`)
    .join(' · ');
}

export function markdownTable(rowsList) {
  const head =
    '| phase | metric | Petrel | baseline | ratio | target | met | CPU % Petrel | CPU % baseline |\n' +
    '|---|---|---|---|---|---|---|---|---|\n';
  const body = rowsList
    .map((r) =>
      [
        r.phase,
        r.metric,
        r.petrel,
        r.baseline,
        fmtRatio(r.ratio),
        r.target ?? '',
        r.met === true ? 'yes' : r.met === false ? '**no**' : '',
        cpuCell(r.cpu_petrel),
        cpuCell(r.cpu_baseline),
      ].join(' | '),
    )
    .map((l) => `| ${l} |`)
    .join('\n');
  return head + body + '\n';
}

export function machineLine(m) {
  return (
    `${m.nproc} cores (${m.cpu_model}), ${m.memory_gib} GiB, Linux ${m.kernel}, Node ${m.node}, ` +
    `Redis ${m.redis} (AOF ${m.redis_aof}), bullmq ${m.packages.bullmq}, nodemailer ${m.packages.nodemailer}, ` +
    `smtp-server ${m.packages['smtp-server']}, express ${m.packages.express}, autocannon ${m.packages.autocannon}`
  );
}

export const CPU_LEGEND =
  'CPU: % of one core over the measured window, per process (/proc/<pid>/stat; redis from INFO cpu). ' +
  '`w` = all worker processes together, `gen` = the bench process (autocannon / load generator), ' +
  '`aof-fork` = AOF rewrite children, `m` = the whole machine (100 = every core busy), `other` = CPU of ' +
  'processes the bench did not start plus kernel time no process is charged for and AOF rewrite children still ' +
  'running when the window closed (a few % on a quiet machine; ' +
  'much more means other work was running and the figures are contaminated). Per-email CPU (µs or ms of CPU per email) ' +
  'is the figure least affected by other load.';
