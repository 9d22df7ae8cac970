/**
 * One writer per output (README, "Security and safety"): an export to `--out F` holds an exclusive
 * lock for its whole run, the folder `F.lock` made by `proper-lockfile` (mkdir is atomic; the
 * holder refreshes its mtime, so a lock whose mtime stops moving is stale). Inside it,
 * `owner.json` names the holder (`{ pid, host, since }`) for the message a second export prints.
 */
import * as nodeFs from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { hostname } from 'node:os';
import { kill, pid as ownPid } from 'node:process';
import { join } from 'node:path';
import { CollectionsError, OutputError } from '../errors.js';
import { createExclusive, fileError, nodeFileSystem } from '../io/files.js';

/** Who holds a lock, as `owner.json` records it. */
export interface LockOwner {
  /** Process id of the holder. */
  pid: number;
  /** `os.hostname()` of the holder's machine. */
  host: string;
  /** When it took the lock, ISO 8601. */
  since: string;
}

/** A held output lock. */
export interface OutputLock {
  /** The lock folder, `F.lock`. */
  readonly path: string;
  /** Releases the lock (removes `F.lock`); idempotent; never throws. */
  release(): Promise<void>;
}

/** Options of {@link lockOutput}. */
export interface LockOutputOptions {
  /** The id recorded as the holder; default this process's (`node:process`, as proper-lockfile's own exit hook is process-wide). */
  pid?: number;
  /** Epoch ms now, for `since`. */
  now: () => number;
  /** Prints a one-line note on stderr (the stale-lock takeover). */
  note: (line: string) => void;
  /** Whether a process of this host is alive; default `process.kill(pid, 0)` semantics (ESRCH = dead). */
  isAlive?: (pid: number) => boolean;
}

/** `kill(pid, 0)`: ESRCH means no such process; EPERM means it exists but is another user's. */
function processAlive(pid: number): boolean {
  try {
    kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * proper-lockfile's file system with `rmdir` removing the lock folder with its `owner.json`
 * (proper-lockfile removes only empty folders; it calls rmdir on nothing but its lock folders).
 */
const LOCK_FS = {
  ...nodeFs,
  rmdir: (path: string, callback: (error: NodeJS.ErrnoException | null) => void) => nodeFs.rm(path, { recursive: true, force: true }, callback),
  rmdirSync: (path: string) => nodeFs.rmSync(path, { recursive: true, force: true }),
};

/** Reads `owner.json` of a lock; undefined when it is missing or unreadable (a lock being taken). */
async function readOwner(lockPath: string): Promise<LockOwner | undefined> {
  try {
    const value = JSON.parse(
      await readFile(join(lockPath, 'owner.json'), { encoding: 'utf8', flag: nodeFs.constants.O_RDONLY | nodeFs.constants.O_NOFOLLOW }),
    ) as unknown;
    const o = value as Partial<LockOwner> | null;
    if (typeof o?.pid === 'number' && typeof o.host === 'string' && typeof o.since === 'string') return { pid: o.pid, host: o.host, since: o.since };
  } catch {
    // No owner recorded (yet): the lock is named without one.
  }
  return undefined;
}

/** How often, and how many ms apart, {@link readSettledOwner} looks for the `owner.json` of a lock being taken. */
const OWNER_TRIES = 10;
const OWNER_RETRY_MS = 10;

/**
 * Reads `owner.json` of a lock held by another export, giving a lock that is being taken (its folder
 * made, its `owner.json` not yet written) up to about 100 ms to name its holder.
 * @returns undefined when it still names none
 */
async function readSettledOwner(lockPath: string): Promise<LockOwner | undefined> {
  for (let attempt = 1; ; attempt++) {
    const owner = await readOwner(lockPath);
    if (owner !== undefined || attempt >= OWNER_TRIES) return owner;
    await delay(OWNER_RETRY_MS);
  }
}

/** The `another export is writing F (pid N, since T)` error (exit 7, `E_LOCKED`). */
function lockedError(target: string, owner: LockOwner | undefined): CollectionsError {
  const who = owner ? `pid ${owner.pid}${owner.host === hostname() ? '' : ` on ${owner.host}`}, since ${owner.since}` : 'owner unknown';
  return new CollectionsError(`another export is writing ${target} (${who})`, 'E_LOCKED');
}

/**
 * Takes the lock of `target` at once (no waiting). A lock of a dead process of this host (its
 * `owner.json` names a pid that no longer runs) or one whose mtime stopped moving for 10 s
 * (proper-lockfile's staleness) is taken over with the note `collections: took over the stale lock
 * of F (pid N, since T)`.
 * @returns the held lock; it is also removed when the process exits (proper-lockfile's exit hook)
 * @throws {CollectionsError} (exit 7, `E_LOCKED`) `another export is writing F (pid N, since T)`
 * @throws {OutputError} (exit 7) when the lock folder cannot be made (EACCES, EROFS, ENOSPC…)
 */
export async function lockOutput(target: string, options: LockOutputOptions): Promise<OutputLock> {
  const { lock } = await import('proper-lockfile');
  const lockPath = `${target}.lock`;
  const take = () => lock(target, { realpath: false, lockfilePath: lockPath, fs: LOCK_FS, onCompromised: () => undefined });
  let release: () => Promise<void>;
  try {
    release = await take();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw fileError('create the lock', lockPath, error);
    const owner = await readSettledOwner(lockPath);
    const alive = options.isAlive ?? processAlive;
    if (owner === undefined || owner.host !== hostname() || alive(owner.pid)) throw lockedError(target, owner);
    options.note(`collections: took over the stale lock of ${target} (pid ${owner.pid}, since ${owner.since})`);
    await rm(lockPath, { recursive: true, force: true });
    try {
      release = await take();
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code === 'ELOCKED') throw lockedError(target, await readOwner(lockPath));
      throw fileError('create the lock', lockPath, again);
    }
  }
  let released = false;
  const held: OutputLock = {
    path: lockPath,
    async release() {
      if (released) return;
      released = true;
      await release().catch(() => undefined);
    },
  };
  try {
    const owner: LockOwner = { pid: options.pid ?? ownPid, host: hostname(), since: new Date(options.now()).toISOString() };
    const handle = await createExclusive(nodeFileSystem, join(lockPath, 'owner.json'), 0o644);
    try {
      await handle.writeFile(`${JSON.stringify(owner)}\n`);
    } finally {
      await handle.close();
    }
  } catch (error) {
    await held.release();
    throw error instanceof OutputError ? error : fileError('create the lock', lockPath, error);
  }
  return held;
}
