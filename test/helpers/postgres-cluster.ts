/**
 * A private PostgreSQL cluster for one test run, from the machine's PostgreSQL binaries (Debian
 * package postgresql: /usr/lib/postgresql/<version>/bin): `initdb` in a temporary folder (or a
 * copy of an earlier run's initdb output, see initializeData), then
 * `postgres` in the foreground on a free port, listening on 127.0.0.1 only with its Unix socket
 * in that folder, trust authentication, and none of the durability a throwaway cluster does not
 * need (fsync, full_page_writes and synchronous_commit off).
 *
 * The server runs as our child (not daemonised by pg_ctl) so that it is tied to the runner (see
 * processes.ts) and a teardown can wait for its exit. initdb and postgres refuse to run as root:
 * as root both run as the `postgres` OS user, which the Debian package creates.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, runOwned, spawnOwned, type OwnedProcess, type OwnedProcessOptions } from './processes.ts';

export interface PostgresCluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres: a superuser that may create databases. */
  adminUrl: string;
  /** e.g. "15". */
  version: string;
  /** Fast shutdown, waited for, then the folder is removed. */
  stop(): Promise<void>;
  /** For an exiting process (no event loop): immediate shutdown, then the folder is removed. */
  stopNow(): void;
}

/** Folder names of private clusters in the system temp folder (see sweepStaleClusters). */
export const CLUSTER_DIR_PREFIX = 'test-postgres-';
const OWNER_FILE = 'owner.pid';

/** The newest Debian PostgreSQL bin folder, else the one pg_config names, else none. */
export function postgresBinDir(): { dir: string; version: string } | undefined {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  versions.sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
  if (versions[0] !== undefined) return { dir: join(root, versions[0], 'bin'), version: versions[0] };
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const version = execFileSync('pg_config', ['--version'], { encoding: 'utf8' }).match(/(\d+)/)?.[1] ?? '?';
    if (existsSync(join(dir, 'initdb'))) return { dir, version };
  } catch {
    // no pg_config on PATH
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Remove the folders of private clusters whose runner is gone (killed before it could clean up;
 * the kernel already stopped their servers). A folder without its owner file yet is being set up.
 */
export function sweepStaleClusters(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(CLUSTER_DIR_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    try {
      const owner = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && !isAlive(owner)) rmSync(dir, { recursive: true, force: true });
    } catch {
      // no owner file (yet): leave it
    }
  }
}

// 1 MB WAL segments instead of 16: the folder to copy shrinks from 39 MB to 24 MB.
const INITDB_ARGS = ['-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--wal-segsize=1', '--no-sync', '--no-instructions'];

/**
 * Fill `data` with a new cluster. initdb takes 1.5 s of a quiet two-core machine and 4-6 s of a
 * loaded one; a copy of its output takes a tenth of that. So the first run keeps a pristine copy
 * under node_modules/.cache/test-postgres, named for the exact server build and initdb arguments,
 * and later runs copy it (`cp -a` keeps the postgres user's ownership and the 0700 mode).
 */
async function initializeData(binDir: string, data: string, options: OwnedProcessOptions): Promise<void> {
  const build = execFileSync(join(binDir, 'postgres'), ['--version'], { encoding: 'utf8' }).trim();
  const key = createHash('sha256').update(JSON.stringify([build, INITDB_ARGS, options.user ?? ''])).digest('hex').slice(0, 16);
  const cache = resolve('node_modules', '.cache', 'test-postgres');
  const template = join(cache, key);
  if (existsSync(join(template, 'PG_VERSION'))) {
    await runOwned('cp', ['-a', template, data]);
    return;
  }
  await runOwned(join(binDir, 'initdb'), ['-D', data, ...INITDB_ARGS], options);
  // Keep the copy for next time; a second run doing the same at once loses the rename, harmlessly.
  const staging = `${template}.${process.pid}`;
  try {
    mkdirSync(cache, { recursive: true });
    await runOwned('cp', ['-a', data, staging]);
    renameSync(staging, template);
    // Templates of other builds or arguments are never used again.
    for (const name of readdirSync(cache)) if (name !== key && !name.includes('.')) rmSync(join(cache, name), { recursive: true, force: true });
  } catch {
    rmSync(staging, { recursive: true, force: true });
  }
}

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed: the tests need initdb and postgres (Debian package postgresql; `bash test/system-deps.sh` installs it)');
  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? 'postgres' : undefined;
  const dir = mkdtempSync(join(tmpdir(), CLUSTER_DIR_PREFIX));
  writeFileSync(join(dir, OWNER_FILE), String(process.pid));
  const data = join(dir, 'data');
  const remove = () => rmSync(dir, { recursive: true, force: true });
  let server: OwnedProcess | undefined;
  try {
    if (user !== undefined) {
      const id = (flag: string) => Number(execFileSync('id', [flag, user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
      chownSync(dir, id('-u'), id('-g'));
    }
    const options = { user, cwd: dir, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LC_ALL: 'C.UTF-8' } };
    await initializeData(bin.dir, data, options);
    // The port is free when picked but may be taken before postgres binds it: pick again then.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const settings = { listen_addresses: '127.0.0.1', port: String(port), unix_socket_directories: dir, fsync: 'off', full_page_writes: 'off', synchronous_commit: 'off' };
      const args = ['-D', data, ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
      // SIGQUIT is PostgreSQL's immediate shutdown: right for a cluster nobody keeps.
      server = spawnOwned(join(bin.dir, 'postgres'), args, { ...options, deathSignal: 'SIGQUIT' });
      try {
        await server.waitForLine(/database system is ready to accept connections/, 120_000);
      } catch (error) {
        await server.stop('SIGKILL');
        if (attempt < 3 && /could not bind|Address already in use/.test(server.output())) continue;
        throw error;
      }
      const running = server;
      return {
        adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
        version: bin.version,
        async stop() {
          // SIGINT is the fast shutdown: open sessions are ended, then the server exits.
          await running.stop('SIGINT');
          remove();
        },
        stopNow() {
          running.child.kill('SIGQUIT');
          // No event loop runs in an exiting process: wait by polling for the lock file, which
          // the postmaster removes last, so the folder is not removed under a live server.
          const lock = join(data, 'postmaster.pid');
          const until = Date.now() + 5_000;
          while (existsSync(lock) && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
          try {
            remove();
          } catch {
            // sweepStaleClusters removes what is left on the next run
          }
        },
      };
    }
  } catch (error) {
    await server?.stop('SIGKILL');
    remove();
    throw error;
  }
}
