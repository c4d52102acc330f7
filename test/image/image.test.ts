/**
 * The container image, built and run on this machine, which has no container engine and no
 * route to a registry:
 * - scripts/image-build.sh builds infra/docker/Dockerfile with Debian's buildah (the base image
 *   made locally by scripts/image-base.sh: a debootstrap rootfs plus Node.js from the npm
 *   registry, under the name the Dockerfile's FROM gives);
 * - each process runs inside the built image with `buildah run --isolation chroot`: the image's
 *   filesystem, user, working directory, environment and entrypoint, on the host's network
 *   (there is no network namespace), against a local redis-server and SMTP sink, with the
 *   official `resend` SDK as the client.
 */
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Resend } from 'resend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  startProcess,
  startRedis,
  startSmtpSink,
  uniquePrefix,
  waitUntil,
  type NodeProcess,
  type SmtpSink,
  type TestRedis,
} from '@petrel/testing';

const ROOT = resolve(__dirname, '../..');
const TAG = 'localhost/petrel:test';
const CONTAINER = `petrel-image-test-${process.pid}`;
/**
 * Every process this file starts in the image carries it in its environment, so it is found
 * (its uid read, and killed at the end) whatever became of its `buildah run`: a killed
 * `buildah run` leaves the process it started running.
 */
const MARKER = `PETREL_IMAGE_TEST=${process.pid}`;
/** The apps the image runs as processes of their own (apps/petrel is the all-in-one and CLI). */
const APPS = readdirSync(join(ROOT, 'apps'))
  .filter((app) => app !== 'petrel' && existsSync(join(ROOT, 'apps', app, 'src/main.ts')))
  .sort();

const execFileAsync = promisify(execFile);

/** Runs a command to its end: exit code and output (a non-zero exit is a result, not a throw). */
async function exec(
  command: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, { cwd: ROOT, maxBuffer: 256 << 20 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw err;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** The image's configuration as Docker reads it (`--format docker`: the one with HEALTHCHECK). */
interface ImageConfig {
  User: string;
  WorkingDir: string;
  Entrypoint: string[];
  Cmd: string[];
  Env: string[];
  ExposedPorts: Record<string, object>;
  Healthcheck?: { Test: string[] };
}

interface Manifest {
  dependencies?: Record<string, string>;
}

/** `buildah run` of `command` in the test's working container, with `env` on top of the image's. */
function runArgs(env: Record<string, string>, command: readonly string[]): string[] {
  const vars = Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
  return ['run', '--isolation', 'chroot', ...vars, '--env', MARKER, CONTAINER, '--', ...command];
}

/** The processes started in the image by this file (see MARKER), with their environment. */
function imageProcesses(): { pid: number; cmdline: string[]; environ: string[] }[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .flatMap((pid) => {
      try {
        const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
        if (!environ.includes(MARKER)) return [];
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
        return [{ pid: Number(pid), cmdline, environ }];
      } catch {
        return []; // ended meanwhile
      }
    });
}

function killImageProcesses(): void {
  for (const { pid } of imageProcesses()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}
// a test process that dies takes its processes in the image along (as killOnExit does for others)
process.on('exit', killImageProcesses);

/** Files (not directories) below `dir`, symlinks not followed; `skip` prunes directories. */
function filesBelow(dir: string, skip: (path: string) => boolean = () => false): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (skip(path)) return [];
    return lstatSync(path).isDirectory() ? filesBelow(path, skip) : [path];
  });
}

let config: ImageConfig;
let rootfs: string;
let redis: TestRedis;
let sink: SmtpSink;

beforeAll(async () => {
  const build = await exec('bash', ['scripts/image-build.sh', TAG]);
  if (build.code !== 0) {
    throw new Error(
      `scripts/image-build.sh failed (${build.code}):\n${(build.stdout + build.stderr).slice(-6000)}`,
    );
  }
  // "base image … made in N s" (or "is present") and "image … built in N s": the times CI spends
  for (const line of build.stdout.split('\n').filter((l) => /^(base )?image /.test(l))) console.log(line);
  const inspect = await exec('buildah', ['inspect', '--type', 'image', TAG]);
  expect(inspect.code, inspect.stderr).toBe(0);
  config = (JSON.parse(inspect.stdout) as { Docker: { config: ImageConfig } }).Docker.config;
  const from = await exec('buildah', ['from', '--pull=never', '--name', CONTAINER, TAG]);
  expect(from.code, from.stderr).toBe(0);
  const mount = await exec('buildah', ['mount', CONTAINER]);
  expect(mount.code, mount.stderr).toBe(0);
  rootfs = mount.stdout.trim();
  [redis, sink] = await Promise.all([startRedis(), startSmtpSink()]);
});

afterAll(async () => {
  killImageProcesses();
  await exec('buildah', ['rm', CONTAINER]);
  await Promise.all([sink?.stop(), redis?.stop()]);
});

/** A Petrel process in the image, started through the image's ENTRYPOINT. */
interface ImageProcess {
  handle: NodeProcess;
  metricsPort: number;
  /** The Node.js process inside (found by its metrics port): what SIGTERM and the uid are about. */
  pid: number;
  /** Runs the image's HEALTHCHECK command in this process's environment, as Docker does: exit code. */
  healthcheck(): Promise<number>;
  /** SIGTERM to the process (what `docker stop` sends), then waits for its end: the exit code. */
  stop(): Promise<number | null>;
}

async function startInImage(app: string, env: Record<string, string>): Promise<ImageProcess> {
  const metricsPort = await freePort();
  const all = {
    // the container shares the host's network here (chroot isolation): loopback only
    METRICS_HOST: '127.0.0.1',
    SMTP_BIND_HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...env,
    METRICS_PORT: String(metricsPort),
  };
  const handle = await startProcess(
    'buildah',
    runArgs(all, [...config.Entrypoint, app]),
    {
      env: {},
      ready: async () => (await fetch(`http://127.0.0.1:${metricsPort}/ready`)).ok,
      readyTimeoutMs: 90_000,
    },
    `${app} in the image`,
  );
  const inside = imageProcesses().find(
    (p) => p.cmdline[0] === 'node' && p.environ.includes(`METRICS_PORT=${metricsPort}`),
  );
  expect(inside, `${app}'s node process`).toBeDefined();
  return {
    handle,
    metricsPort,
    pid: inside!.pid,
    async healthcheck() {
      const check = await exec('buildah', runArgs(all, config.Healthcheck!.Test.slice(1)));
      return check.code;
    },
    async stop() {
      process.kill(inside!.pid, 'SIGTERM');
      await handle.exited();
      return handle.child.exitCode;
    },
  };
}

/** uid and gid of a host-visible process (all four of real, effective, saved, filesystem). */
function ids(pid: number): { uid: string[]; gid: string[] } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => new RegExp(`^${name}:\\s+(.*)$`, 'm').exec(status)![1]!.split(/\s+/);
  return { uid: field('Uid'), gid: field('Gid') };
}

/** Sends one email through the API at `port` with the SDK and waits until the sink has it. */
async function sendThrough(port: number, key: string, subject: string): Promise<void> {
  const resend = new Resend(key, { baseUrl: `http://127.0.0.1:${port}` });
  const sent = await resend.emails.send({
    from: 'Image <image@acme.test>',
    to: `${subject}@example.test`,
    subject,
    html: `<p>${subject}</p>`,
  });
  expect(sent.error).toBeNull();
  const id = sent.data!.id;
  const message = await waitUntil(() => sink.messages.find((m) => m.parsed.subject === subject), {
    timeoutMs: 60_000,
    message: `"${subject}" in the SMTP sink`,
  });
  expect(message.envelope.to).toEqual([`${subject}@example.test`]);
  await waitUntil(async () => (await resend.emails.get(id)).data?.last_event === 'delivered', {
    timeoutMs: 30_000,
    message: `${id} delivered`,
  });
}

describe('the image', () => {
  it('runs as the non-root node user, one entrypoint choosing the process, HEALTHCHECK on /ready', async () => {
    expect(config.User).toBe('node');
    expect(config.WorkingDir).toBe('/app');
    expect(config.Entrypoint).toEqual(['infra/docker/entrypoint.sh']);
    expect(config.Cmd).toEqual(['api']);
    expect(config.Healthcheck?.Test).toEqual(['CMD', 'node', 'infra/docker/healthcheck.mjs']);
    expect(readFileSync(join(rootfs, 'app/infra/docker/healthcheck.mjs'), 'utf8')).toContain('/ready');
    expect(Object.keys(config.ExposedPorts)).toContain('3000/tcp');
    expect(config.Env).toContain('NODE_ENV=production');
    // the user the image names is not root, and a command run in the image runs as it
    const passwd = readFileSync(join(rootfs, 'etc/passwd'), 'utf8');
    expect(passwd).toMatch(/^node:x:1000:1000:/m);
    const id = await exec('buildah', runArgs({}, ['id', '-u']));
    expect(id.stdout.trim()).toBe('1000');
    // the app's files are root's: the process cannot change its own code
    expect(lstatSync(join(rootfs, 'app/apps/api/dist/main.js')).uid).toBe(0);
    expect(lstatSync(join(rootfs, 'data')).uid).toBe(1000);
  });

  it('holds the compiled apps only: no dev dependencies, no sources, no secrets', () => {
    const app = join(rootfs, 'app');
    const outsideModules = filesBelow(app, (p) => p.endsWith('/node_modules'));
    const rel = outsideModules.map((f) => relative(app, f));
    // every entry the entrypoint runs is there, compiled
    for (const name of [...APPS, 'petrel']) expect(rel, name).toContain(`apps/${name}/dist/main.js`);
    expect(rel).toContain('apps/petrel/dist/cli.js');
    expect(rel).toContain('apps/dashboard/dist/index.html');
    // of each workspace, package.json and dist/ only; no TypeScript (not even declarations)
    for (const path of rel) {
      expect(path, path).toMatch(
        /^(package(-lock)?\.json|infra\/redis\.conf|infra\/docker\/(entrypoint\.sh|healthcheck\.mjs)|(apps|packages)\/[\w-]+\/(package\.json|dist\/.+))$/,
      );
      expect(path, path).not.toMatch(/\.(ts|tsx|mts|cts)$/);
    }
    // the tests' harness, and what only it depends on (dns2…), stayed out
    expect(existsSync(join(app, 'packages/testing'))).toBe(false);
    expect(existsSync(join(app, 'node_modules/@petrel/testing'))).toBe(false);
    const dependencies = (dir: string) =>
      Object.keys(
        (JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Manifest).dependencies ?? {},
      );
    const others = new Set(
      ['.', ...['apps', 'packages'].flatMap((d) => readdirSync(join(ROOT, d)).map((w) => `${d}/${w}`))]
        .filter((dir) => dir !== 'packages/testing' && existsSync(join(ROOT, dir, 'package.json')))
        .flatMap(dependencies),
    );
    const harnessOnly = dependencies('packages/testing').filter((d) => !others.has(d));
    expect(harnessOnly).toContain('dns2');
    for (const name of harnessOnly) expect(existsSync(join(app, 'node_modules', name)), name).toBe(false);

    // no package the lock marks dev-only (reachable from devDependencies alone)
    const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const devOnly = Object.entries(lock.packages)
      .filter(([path, entry]) => entry.dev && path.startsWith('node_modules/'))
      .map(([path]) => path);
    for (const name of ['typescript', 'vitest', 'vite', 'eslint', 'prettier', 'turbo'])
      expect(devOnly, name).toContain(`node_modules/${name}`);
    expect(devOnly.filter((path) => existsSync(join(app, path)))).toEqual([]);
    // what is there is what the production dependencies need: ioredis, bullmq, express…
    for (const name of ['bullmq', 'ioredis', 'express', 'nodemailer', 'smtp-server'])
      expect(existsSync(join(app, 'node_modules', name, 'package.json')), name).toBe(true);

    // no secrets: no environment, key or credential files anywhere outside packages' own
    // folders; no private key in the app's files; the build's CA secret and npm cache left behind
    const everywhere = filesBelow(rootfs, (p) => /\/(node_modules|proc|sys|dev)$/.test(p));
    const secretNames = everywhere
      .map((f) => relative(rootfs, f))
      .filter((f) =>
        /(^|\/)(\.env(\..*)?|\.npmrc|\.netrc|id_(rsa|ecdsa|ed25519)(\.pub)?|[^/]+\.(pem|key|p12|pfx))$/.test(
          f,
        ),
      );
    expect(secretNames).toEqual([]);
    for (const file of outsideModules)
      expect(readFileSync(file, 'latin1'), relative(app, file)).not.toMatch(/PRIVATE KEY-----/);
    expect(existsSync(join(rootfs, 'run/secrets'))).toBe(false);
    expect(existsSync(join(rootfs, 'root/.npm'))).toBe(false);
  });

  it('api and worker start, answer /ready and deliver an email sent with the SDK, as uid 1000', async () => {
    const key = `re_image_${Date.now()}`;
    const port = await freePort();
    const common = {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: uniquePrefix('image'),
      // not a test of sending domains: any from
      ENFORCE_VERIFIED_DOMAINS: 'false',
    };
    const api = await startInImage('api', { ...common, PORT: String(port), BOOTSTRAP_API_KEY: key });
    const worker = await startInImage('worker', { ...common, SMTP_URL: sink.url });
    try {
      for (const p of [api, worker]) {
        expect(ids(p.pid)).toEqual({
          uid: ['1000', '1000', '1000', '1000'],
          gid: ['1000', '1000', '1000', '1000'],
        });
      }
      await sendThrough(port, key, 'split');
      expect(await api.healthcheck()).toBe(0);
      expect(await worker.healthcheck()).toBe(0);
    } finally {
      // the entrypoint exec'd node: SIGTERM reaches it and it shuts down cleanly (exit 0)
      expect(await api.stop()).toBe(0);
      expect(await worker.stop()).toBe(0);
    }
    // nothing answers /ready any more: the HEALTHCHECK says so
    expect(await api.healthcheck()).toBe(1);
  });

  it('the all-in-one process delivers an email sent with the SDK', async () => {
    const key = `re_image_all_${Date.now()}`;
    const port = await freePort();
    const petrel = await startInImage('petrel', {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: uniquePrefix('image-all'),
      SMTP_URL: sink.url,
      PORT: String(port),
      BOOTSTRAP_API_KEY: key,
      SMTP_SUBMISSION_PORT: String(await freePort()),
      SMTP_SUBMISSION_TLS_PORT: 'off',
      SMTP_INBOUND_PORT: 'off',
    });
    try {
      expect(ids(petrel.pid).uid).toEqual(['1000', '1000', '1000', '1000']);
      await sendThrough(port, key, 'allinone');
      expect(await petrel.healthcheck()).toBe(0);
    } finally {
      expect(await petrel.stop()).toBe(0);
    }
  });

  it('scheduler, webhooks and smtp start from the image and answer /ready', async () => {
    const common = { REDIS_URL: redis.url, REDIS_KEY_PREFIX: uniquePrefix('image-rest') };
    const own: Record<string, Record<string, string>> = {
      smtp: {
        SMTP_SUBMISSION_PORT: String(await freePort()),
        SMTP_SUBMISSION_TLS_PORT: 'off',
        SMTP_INBOUND_PORT: 'off',
      },
    };
    const rest = APPS.filter((app) => app !== 'api' && app !== 'worker');
    expect(rest).toEqual(['scheduler', 'smtp', 'webhooks']);
    const started = await Promise.all(rest.map((app) => startInImage(app, { ...common, ...own[app] })));
    try {
      for (const [i, app] of rest.entries()) {
        expect(ids(started[i]!.pid).uid, app).toEqual(['1000', '1000', '1000', '1000']);
        expect(await started[i]!.healthcheck(), app).toBe(0);
      }
    } finally {
      expect(await Promise.all(started.map((p) => p.stop()))).toEqual([0, 0, 0]);
    }
  });
});
