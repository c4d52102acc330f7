/**
 * infra/ checked against the code it deploys (no Docker engine or cluster runs here):
 * - every YAML and JSON file parses; the Dockerfile, its entrypoint and the compose file name
 *   files that exist (the apps' dist/main.js after the build); compose has a service per app and
 *   its environment passes each app's config parser; the Kubernetes Deployments probe the port
 *   their app serves and outlast its graceful shutdown;
 * - every metric the Grafana dashboard, the alert rules and the KEDA trigger query is exported by
 *   a running process, from its start: the five built apps start as child processes against one
 *   fresh Redis and their /metrics, scraped before any traffic, carry a series of every name in
 *   those queries; then they serve a little traffic (an email over HTTP and over SMTP, a webhook
 *   endpoint that answers 410, an automation run) and are compared again.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Resend } from 'resend';
import { parse, parseAllDocuments } from 'yaml';
import { METRICS_PORTS, loadConfig } from '@petrel/config';
import { Lifecycle } from '@petrel/observability';
import { apiConfigShape } from '../../apps/api/src/config.js';
import { workerConfigShape } from '../../apps/worker/src/config.js';
import { schedulerConfigShape } from '../../apps/scheduler/src/config.js';
import { webhooksConfigShape } from '../../apps/webhooks/src/config.js';
import { smtpConfigShape } from '../../apps/smtp/src/config.js';
import {
  freePort,
  startHttpReceiver,
  startNodeProcess,
  startRedis,
  startSmtpSink,
  uniquePrefix,
  waitUntil,
  type HttpReceiver,
  type NodeProcess,
  type SmtpSink,
  type TestRedis,
} from '@petrel/testing';
import { SendQueues } from '@petrel/queue';
import { Keys, createRedis } from '@petrel/store';
import { submissionTransport } from './scenarios/smtp-submission.js';

const ROOT = resolve(__dirname, '../..');
const INFRA = join(ROOT, 'infra');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The apps that run as their own process in a deployment (apps/petrel is the all-in-one + CLI). */
const APPS = readdirSync(join(ROOT, 'apps'))
  .filter((app) => app !== 'petrel' && existsSync(join(ROOT, 'apps', app, 'src/main.ts')))
  .sort();
type App = 'api' | 'worker' | 'scheduler' | 'webhooks' | 'smtp';
const CONFIG_SHAPES: Record<App, Parameters<typeof loadConfig>[0]> = {
  api: apiConfigShape,
  worker: workerConfigShape,
  scheduler: schedulerConfigShape,
  webhooks: webhooksConfigShape,
  smtp: smtpConfigShape,
};
/** Metrics Prometheus itself (not a Petrel process) produces. */
const EXTERNAL_METRICS = new Set(['up']);

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function yamlDocs(path: string): Record<string, any>[] {
  const docs = parseAllDocuments(readFileSync(path, 'utf8'), { merge: true });
  const list = Array.isArray(docs) ? docs : [docs];
  for (const doc of list) expect(doc.errors, path).toEqual([]);
  return list.map((doc) => doc.toJS() as Record<string, any>).filter((d) => d !== null);
}

const compose = parse(read('infra/docker-compose.yml'), { merge: true }) as Record<string, any>;
const k8s = filesUnder(join(INFRA, 'k8s'))
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) => yamlDocs(f));
const dashboard = JSON.parse(read('infra/grafana/petrel.json')) as { panels: any[] };
const alerts = parse(read('infra/prometheus/alerts.yml')) as { groups: { rules: any[] }[] };

/** `${VAR:-default}` as compose resolves it with an empty shell environment. */
function composeValue(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined; // passed from the shell only when set there
  return String(value).replace(
    /\$\{(\w+)(?::?-([^}]*))?\}/g,
    (_, _name, def: string | undefined) => def ?? '',
  );
}

function composeEnv(service: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(compose.services[service].environment ?? {})) {
    const value = composeValue(v);
    if (value !== undefined) env[k] = value;
  }
  return env;
}

describe('infra files', () => {
  it('every YAML and JSON file parses', () => {
    const files = filesUnder(INFRA).filter((f) => /\.(ya?ml|json)$/.test(f));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      if (file.endsWith('.json')) expect(() => JSON.parse(readFileSync(file, 'utf8')), file).not.toThrow();
      else expect(yamlDocs(file).length, file).toBeGreaterThan(0);
    }
  });

  it('the Dockerfile copies files that exist and runs the apps through the entrypoint', () => {
    const dockerfile = read('infra/docker/Dockerfile');
    for (const line of dockerfile.split('\n').filter((l) => /^COPY /.test(l) && !/--from=/.test(l))) {
      const args = line
        .replace(/^COPY\s+/, '')
        .split(/\s+/)
        .filter((a) => a && !a.startsWith('--'));
      for (const source of args.slice(0, -1)) {
        // `dir/*/file`: at least the file of one workspace
        const [dir, rest] = source.split('/*/');
        const found =
          rest === undefined
            ? existsSync(join(ROOT, source))
            : readdirSync(join(ROOT, dir!)).some((w) => existsSync(join(ROOT, dir!, w, rest)));
        expect(found, `COPY ${source}`).toBe(true);
      }
    }
    // Debian slim (its release pinned or not)
    expect(dockerfile).toMatch(/^FROM node:\$\{NODE_VERSION\}-(?:[a-z]+-)?slim AS runtime$/m);
    expect(dockerfile).toMatch(/^ARG NODE_VERSION=20$/m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toContain('ENTRYPOINT ["infra/docker/entrypoint.sh"]');
    expect(dockerfile).toContain('CMD ["node", "infra/docker/healthcheck.mjs"]');
    expect(existsSync(join(INFRA, 'docker/Dockerfile.dockerignore'))).toBe(true);

    const entrypoint = read('infra/docker/entrypoint.sh');
    const served = /^\s+([a-z |]+)\)\n\s+exec node "apps\/\$app\/dist\/main\.js"/m
      .exec(entrypoint)![1]!
      .split('|')
      .map((s) => s.trim())
      .sort();
    expect(served).toEqual([...APPS, 'petrel'].sort());
    for (const app of served) expect(existsSync(join(ROOT, 'apps', app, 'dist/main.js')), app).toBe(true);
    expect(entrypoint).toContain('exec node apps/petrel/dist/cli.js "$@"');
    expect(existsSync(join(ROOT, 'apps/petrel/dist/cli.js'))).toBe(true);
    expect(statSync(join(INFRA, 'docker/entrypoint.sh')).mode & 0o111).not.toBe(0);

    // the healthcheck's port table is the apps' default metrics ports
    const table = /DEFAULT_PORTS = (\{[^}]+\})/.exec(read('infra/docker/healthcheck.mjs'))![1]!;
    expect(JSON.parse(table.replace(/(\w+):/g, '"$1":'))).toEqual({ ...METRICS_PORTS });
  });

  it('compose runs every app with a configuration its parser accepts, behind the services it needs', () => {
    const services = compose.services as Record<string, any>;
    for (const app of APPS as App[]) {
      const service = services[app];
      expect(service, `compose service ${app}`).toBeDefined();
      expect(service.command, app).toEqual([app]);
      expect(service.build.dockerfile).toBe('infra/docker/Dockerfile');
      expect(existsSync(join(INFRA, service.build.context, service.build.dockerfile))).toBe(true);
      const env = composeEnv(app);
      const config = loadConfig(CONFIG_SHAPES[app], env) as { METRICS_PORT: number; METRICS_HOST: string };
      expect(config.METRICS_PORT, app).toBe(METRICS_PORTS[app]);
      expect(config.METRICS_HOST).toBe('0.0.0.0');
      expect(service.depends_on.redis.condition).toBe('service_healthy');
      expect(service.stop_grace_period).toMatch(/^\d+s$/);
      expect(parseInt(service.stop_grace_period, 10) * 1000).toBeGreaterThan(lifecycleDeadlineMs());
    }
    expect(composeEnv('worker').SMTP_URL).toMatch(/^smtp:\/\//);
    expect(services.api.deploy.replicas).toBe(2);
    expect(String(services.worker.deploy.replicas)).toMatch(/\d/);

    // Redis: the production settings file, a volume, a password
    expect(services.redis.volumes).toContain('./redis.conf:/usr/local/etc/redis/redis.conf:ro');
    expect(read('infra/redis.conf')).toMatch(/^appendonly yes$/m);
    expect(read('infra/redis.conf')).toMatch(/^maxmemory-policy noeviction$/m);
    expect(services.redis.command).toContain('--requirepass');
    expect(compose.volumes).toHaveProperty('redis-data');

    // the proxy balances over the APIs' port
    expect(services.proxy.volumes).toContain('./nginx/nginx.conf:/etc/nginx/nginx.conf:ro');
    expect(read('infra/nginx/nginx.conf')).toContain(`http://api:${composeEnv('api').PORT}`);

    // Prometheus scrapes each app on its metrics port and loads the rules
    const prometheus = parse(read('infra/prometheus/prometheus.yml')) as Record<string, any>;
    for (const app of APPS as App[]) {
      const job = prometheus.scrape_configs.find((j: any) => j.job_name === `petrel-${app}`);
      expect(job, `scrape job of ${app}`).toBeDefined();
      expect(job.dns_sd_configs[0]).toMatchObject({ names: [app], port: METRICS_PORTS[app] });
    }
    // rule_files are relative to the config file's directory, which compose mounts whole: the
    // same layout in the repository and in the container (promtool.e2e.test.ts checks both)
    expect(services.prometheus.volumes).toContain('./prometheus:/etc/prometheus:ro');
    expect(services.prometheus.command).toContain('--config.file=/etc/prometheus/prometheus.yml');
    expect(prometheus.rule_files.length).toBeGreaterThan(0);
    for (const file of prometheus.rule_files as string[]) {
      expect(file, 'a rule file relative to prometheus.yml').not.toMatch(/^\//);
      expect(existsSync(join(INFRA, 'prometheus', file)), file).toBe(true);
    }

    // Grafana: the datasource uid and the dashboard folder the provisioning files name
    const datasource = parse(read('infra/grafana/provisioning/datasources/prometheus.yml'));
    expect(datasource.datasources[0]).toMatchObject({ type: 'prometheus', url: 'http://prometheus:9090' });
    const provider = parse(read('infra/grafana/provisioning/dashboards/petrel.yml'));
    expect(services.grafana.volumes).toContain(
      `./grafana/petrel.json:${provider.providers[0].options.path}/petrel.json:ro`,
    );
    expect(services.grafana.volumes).toContain('./grafana/provisioning:/etc/grafana/provisioning:ro');
  });

  it('Kubernetes: a Deployment per app probing the port it serves, a PDB each, env its parser accepts', () => {
    const of = (kind: string) => k8s.filter((d) => d.kind === kind);
    const configMap = of('ConfigMap').find((d) => d.metadata.name === 'petrel-config')!;
    const secret = of('Secret').find((d) => d.metadata.name === 'petrel-secrets')!;
    const component = (d: any) => d.spec.selector.matchLabels['app.kubernetes.io/component'];
    for (const app of APPS as App[]) {
      const deployment = of('Deployment').find((d) => component(d) === app);
      expect(deployment, `Deployment of ${app}`).toBeDefined();
      const pod = deployment!.spec.template.spec;
      const [container] = pod.containers;
      expect(container.args).toEqual([app]);
      const env: Record<string, string> = { ...configMap.data, ...secret.stringData };
      for (const e of container.env) env[e.name] = e.value;
      const config = loadConfig(CONFIG_SHAPES[app], env) as { METRICS_PORT: number; METRICS_HOST: string };
      expect(config.METRICS_HOST).toBe('0.0.0.0');
      const metricsPort = container.ports.find((p: any) => p.name === 'metrics');
      expect(metricsPort.containerPort, app).toBe(config.METRICS_PORT);
      for (const [probe, path] of [
        ['readinessProbe', '/ready'],
        ['livenessProbe', '/health'],
      ] as const) {
        expect(container[probe].httpGet.path, `${app} ${probe}`).toBe(path);
        expect([metricsPort.name, metricsPort.containerPort]).toContain(container[probe].httpGet.port);
      }
      expect(container.resources.requests).toMatchObject({
        cpu: expect.any(String),
        memory: expect.any(String),
      });
      expect(container.resources.limits.memory).toEqual(expect.any(String));
      expect(pod.terminationGracePeriodSeconds * 1000, app).toBeGreaterThan(lifecycleDeadlineMs());
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(deployment!.spec.template.metadata.annotations['prometheus.io/port']).toBe(
        String(config.METRICS_PORT),
      );
      const pdb = of('PodDisruptionBudget').find((d) => component(d) === app);
      expect(pdb, `PodDisruptionBudget of ${app}`).toBeDefined();
    }
    const api = of('Service').find((d) => d.metadata.name === 'petrel-api')!;
    expect(api.spec.ports.map((p: any) => p.targetPort)).toContain('http');

    // Redis: the same settings as infra/redis.conf, on a persistent volume
    const redisConf = of('ConfigMap').find((d) => d.metadata.name === 'petrel-redis-config')!;
    expect(redisConf.data['redis.conf']).toBe(read('infra/redis.conf'));
    const redis = of('StatefulSet').find((d) => d.metadata.name === 'petrel-redis')!;
    expect(redis.spec.volumeClaimTemplates[0].metadata.name).toBe('data');

    // workers scale on the waiting send jobs
    const scaled = of('ScaledObject')[0]!;
    expect(scaled.spec.scaleTargetRef.name).toBe(
      of('Deployment').find((d) => component(d) === 'worker')!.metadata.name,
    );
    expect(scaled.spec.triggers[0]).toMatchObject({ type: 'prometheus' });
    expect(scaled.spec.triggers[0].metadata.query).toContain('petrel_queue_jobs');

    // kustomize lists files that exist
    const kustomization = parse(read('infra/k8s/kustomization.yaml'));
    for (const file of kustomization.resources) expect(existsSync(join(INFRA, 'k8s', file)), file).toBe(true);
  });

  it('every alert has a section in docs/operations.md', () => {
    const guide = read('docs/operations.md');
    const anchors = [...guide.matchAll(/^#{2,4} (.+)$/gm)].map(([, h]) =>
      h!
        .toLowerCase()
        .replace(/[^a-z0-9 _-]/g, '')
        .replace(/ /g, '-'),
    );
    for (const rule of alerts.groups.flatMap((g) => g.rules)) {
      expect(guide, rule.alert).toContain(rule.alert);
      const [file, anchor] = rule.annotations.runbook.split('#');
      expect(file).toBe('docs/operations.md');
      expect(anchors, `${rule.alert}: runbook #${anchor}`).toContain(anchor);
    }
    expect(read('README.md')).toContain('docs/operations.md');
  });
});

/** The graceful-shutdown deadline of every Petrel process (Lifecycle's default force timeout). */
function lifecycleDeadlineMs(): number {
  return (new Lifecycle() as unknown as { forceTimeoutMs: number }).forceTimeoutMs;
}

/** The queries of the dashboard, the alert rules and the KEDA trigger. */
function queries(): { where: string; expr: string }[] {
  const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
  return [
    ...panels.flatMap((p) =>
      (p.targets ?? []).map((t: any) => ({ where: `panel "${p.title}"`, expr: t.expr })),
    ),
    ...alerts.groups.flatMap((g) => g.rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr }))),
    ...k8s
      .filter((d) => d.kind === 'ScaledObject')
      .flatMap((d) => d.spec.triggers.map((t: any) => ({ where: 'KEDA trigger', expr: t.metadata.query }))),
  ];
}

/** Metric names in a PromQL expression: quoted strings and label matchers removed first. */
function metricNames(expr: string): string[] {
  const bare = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/\{[^}]*\}/g, '');
  const names = bare.match(/\b(?:petrel|process|nodejs)_[a-z0-9_]+\b|\bup\b/g) ?? [];
  return [...new Set(names)];
}

/**
 * Names of the series a scrape carries (a histogram's `_bucket`, `_sum`, `_count`): a family with
 * a `# TYPE` line but no sample gives Prometheus nothing to query, so it does not count.
 */
function exported(text: string): Set<string> {
  return new Set([...text.matchAll(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{[^}]*\})? \S+/gm)].map(([, n]) => n!));
}

/** The metric names the queries use, each with where it is used. */
function wantedMetrics(): Map<string, string[]> {
  const wanted = new Map<string, string[]>();
  for (const { where, expr } of queries()) {
    for (const name of metricNames(expr)) wanted.set(name, [...(wanted.get(name) ?? []), where]);
  }
  return wanted;
}

/** The per-process panels need the default metrics and petrel_ready in every app. */
const PER_PROCESS = ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'petrel_ready'];

describe('the metrics the dashboard, the alerts and the autoscaler query', () => {
  let redis: TestRedis;
  let sink: SmtpSink;
  let receiver: HttpReceiver;
  const processes: NodeProcess[] = [];
  const metricsPorts = {} as Record<App, number>;
  let apiPort = 0;
  let submissionPort = 0;
  const prefix = uniquePrefix('infra');
  const key = `re_infra_${Date.now()}`;
  let env: Record<App, Record<string, string>>;

  const start = (app: App): Promise<NodeProcess> =>
    startNodeProcess(join(ROOT, 'apps', app, 'dist/main.js'), {
      env: env[app],
      ready: async () => (await fetch(`http://127.0.0.1:${metricsPorts[app]}/ready`)).ok,
    }).then((p) => (processes.push(p), p));

  beforeAll(async () => {
    [redis, sink, receiver] = await Promise.all([
      startRedis(),
      startSmtpSink(),
      // a gone endpoint: one failed delivery and a disabled endpoint
      startHttpReceiver({ respond: () => ({ status: 410 }) }),
    ]);
    apiPort = await freePort();
    submissionPort = await freePort();
    for (const app of APPS as App[]) metricsPorts[app] = await freePort();
    const common = {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: prefix,
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      // not a test of sending domains: any from
      ENFORCE_VERIFIED_DOMAINS: 'false',
    };
    const own: Record<App, Record<string, string>> = {
      // 5 requests at once, then one every 200 ms: the test's calls come in groups of at most 4
      // a second or more apart (after the watchdog's round, after the worker's start); most of
      // the burst of 50 at the end is refused
      api: { PORT: String(apiPort), BOOTSTRAP_API_KEY: key, RATE_LIMIT_RPS: '5' },
      // a sending pool: its metrics (the dashboard's pool panels) are exported at zero from the start
      worker: { SMTP_URL: sink.url, SENDING_POOLS: '{"default": {"addresses": ["127.0.0.1"]}}' },
      // the gauges at once; an email whose job is lost is re-enqueued after 1 s
      scheduler: { METRICS_SAMPLE_INTERVAL_S: '1', WATCHDOG_INTERVAL_S: '1', WATCHDOG_STUCK_AFTER_S: '1' },
      webhooks: {},
      smtp: {
        SMTP_SUBMISSION_PORT: String(submissionPort),
        SMTP_SUBMISSION_TLS_PORT: 'off',
        SMTP_INBOUND_PORT: 'off',
      },
    };
    env = Object.fromEntries<Record<string, string>>(
      (APPS as App[]).map((app) => [
        app,
        { ...common, ...own[app], METRICS_PORT: String(metricsPorts[app]) },
      ]),
    ) as Record<App, Record<string, string>>;
    // the worker starts in the test, once a job has been lost
    await Promise.all((APPS as App[]).filter((app) => app !== 'worker').map(start));
  });

  const scrape = async (app: App) =>
    exported(await (await fetch(`http://127.0.0.1:${metricsPorts[app]}/metrics`)).text());

  /** Scrapes every app until each queried name has a series (or 20 s pass); what is missing. */
  async function missingSeries(): Promise<string[]> {
    const wanted = wantedMetrics();
    let missing: string[] = [];
    await waitUntil(
      async () => {
        const byApp = await Promise.all(
          (APPS as App[]).map(async (app) => [app, await scrape(app)] as const),
        );
        const all = new Set(byApp.flatMap(([, names]) => [...names]));
        missing = [
          ...[...wanted.keys()]
            .filter((n) => !EXTERNAL_METRICS.has(n) && !all.has(n))
            .map((n) => `${n} (${wanted.get(n)!.join(', ')})`),
          ...byApp.flatMap(([app, names]) =>
            PER_PROCESS.filter((n) => !names.has(n)).map((n) => `${n} (per-process panels: ${app})`),
          ),
        ].sort();
        return missing.length === 0;
      },
      { timeoutMs: 20_000, message: 'every queried metric to be exported' },
    ).catch(() => undefined);
    return missing;
  }

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await Promise.all([receiver?.stop(), sink?.stop()]);
    await redis?.stop();
  });

  it("the image's HEALTHCHECK passes on a ready app and fails where none answers", async () => {
    const check = (port: number) =>
      new Promise<number | null>((done) => {
        const child = spawn(process.execPath, [join(INFRA, 'docker/healthcheck.mjs')], {
          env: { PATH: process.env.PATH ?? '', METRICS_PORT: String(port) },
          stdio: 'ignore',
        });
        child.on('exit', (code) => done(code));
      });
    expect(await check(metricsPorts.api)).toBe(0);
    expect(await check(await freePort())).toBe(1);
  });

  it('are exported from process start, before any traffic', async () => {
    const worker = await start('worker');
    try {
      expect(await missingSeries(), 'queried but without a series on a fresh stack').toEqual([]);
    } finally {
      // the next test starts it again once a job has been lost
      await worker.stop();
      processes.splice(processes.indexOf(worker), 1);
    }
  });

  it('are exported by the running processes after traffic', async () => {
    // traffic through every part (the series counted above now move)
    const resend = new Resend(key, { baseUrl: `http://127.0.0.1:${apiPort}` });
    const hook = await resend.webhooks.create({ endpoint: `${receiver.url}/hook`, events: ['email.sent'] });
    expect(hook.error).toBeNull();
    const sent = await resend.emails.send(
      { from: 'Ops <ops@acme.test>', to: 'one@example.test', subject: 'single', html: '<p>1</p>' },
      { idempotencyKey: `infra-${Date.now()}` },
    );
    expect(sent.error).toBeNull();
    // its job lost behind the service's back: the scheduler's watchdog re-enqueues it
    const admin = createRedis(redis.url);
    const queues = new SendQueues(admin, { prefix: new Keys(prefix).bullPrefix() });
    try {
      expect(await queues.remove('send', sent.data!.id)).toBe(true);
      // (its series is there from the start, at 0: wait for the count)
      const requeued = /^petrel_watchdog_actions_total\{[^}]*action="requeued"[^}]*\} [1-9]/m;
      const schedulerMetrics = `http://127.0.0.1:${metricsPorts.scheduler}/metrics`;
      await waitUntil(async () => requeued.test(await (await fetch(schedulerMetrics)).text()), {
        timeoutMs: 20_000,
        message: 'the watchdog to re-enqueue the lost job',
      });
    } finally {
      await queues.close();
      await admin.quit();
    }
    await start('worker');
    const batch = await resend.batch.send([
      { from: 'Ops <ops@acme.test>', to: 'two@example.test', subject: 'batch', html: '<p>2</p>' },
    ]);
    expect(batch.error).toBeNull();
    // an automation run: started, one delay step, completed
    const event = `infra.test.${Date.now()}`;
    const automation = await resend.automations.create({
      name: 'infra',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: event } },
        { key: 'later', type: 'delay', config: { duration: 'PT1S' } },
      ],
      connections: [{ from: 'start', to: 'later' }],
    });
    expect(automation.error).toBeNull();
    expect((await resend.events.send({ event, email: 'four@example.test' })).error).toBeNull();
    const transport = submissionTransport(submissionPort, key);
    await transport.sendMail({ from: 'ops@acme.test', to: 'three@example.test', subject: 'smtp', text: '3' });
    transport.close();
    await sink.waitFor(3, 20_000);
    await receiver.waitFor(1, 20_000);
    const burst = await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(`http://127.0.0.1:${apiPort}/emails`, { headers: { authorization: `Bearer ${key}` } }),
      ),
    );
    expect(burst.map((r) => r.status)).toContain(429);

    expect(await missingSeries(), 'queried but exported by no process').toEqual([]);
  });
});
