/**
 * infra/prometheus as Prometheus itself reads it: Debian's `promtool` (package `prometheus`,
 * installed by scripts/ensure-promtool.sh) checks the committed configuration and rule files and
 * runs the alert rules' unit tests. A missing promtool fails these tests (spawn ENOENT): they
 * are never skipped.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = resolve(__dirname, '../..');
const PROMETHEUS_DIR = join(ROOT, 'infra/prometheus');
const run = promisify(execFile);

/** promtool's exit code and output; a missing binary rejects (ENOENT) and fails the test. */
async function promtool(cwd: string, ...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run('promtool', args, { cwd, timeout: 60_000 });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { code?: unknown; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('promtool on infra/prometheus', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'petrel-promtool-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('check config passes on the committed prometheus.yml and finds its rule file', async () => {
    const res = await promtool(ROOT, 'check', 'config', 'infra/prometheus/prometheus.yml');
    expect(res.output).toContain('SUCCESS: 1 rule files found');
    expect(res.code, res.output).toBe(0);
  });

  it('check config passes where compose mounts the directory (rule_files resolve beside the config)', async () => {
    // docker-compose.yml mounts infra/prometheus at /etc/prometheus and passes
    // --config.file=/etc/prometheus/prometheus.yml: the same files under another directory
    const mounted = join(scratch, 'etc/prometheus');
    cpSync(PROMETHEUS_DIR, mounted, { recursive: true });
    const res = await promtool(scratch, 'check', 'config', join(mounted, 'prometheus.yml'));
    expect(res.code, res.output).toBe(0);
  });

  it('check config fails when a rule file does not exist (the check reads rule_files)', async () => {
    const config = parse(readFileSync(join(PROMETHEUS_DIR, 'prometheus.yml'), 'utf8'));
    const broken = join(scratch, 'broken.yml');
    writeFileSync(broken, JSON.stringify({ ...config, rule_files: ['missing-alerts.yml'] }));
    const res = await promtool(scratch, 'check', 'config', broken);
    expect(res.code).not.toBe(0);
    expect(res.output).toContain('missing-alerts.yml');
  });

  it('check rules passes on alerts.yml', async () => {
    const res = await promtool(ROOT, 'check', 'rules', 'infra/prometheus/alerts.yml');
    expect(res.output).toMatch(/SUCCESS: \d+ rules found/);
    expect(res.code, res.output).toBe(0);
  });

  it("test rules passes alerts.test.yml's synthetic series", async () => {
    const res = await promtool(ROOT, 'test', 'rules', 'infra/prometheus/alerts.test.yml');
    expect(res.output).toContain('SUCCESS');
    expect(res.code, res.output).toBe(0);
  });
});
