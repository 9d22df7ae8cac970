/** One writer per output: the folder `F.lock` (proper-lockfile), with `owner.json` naming the holder for a second export's message. */
import * as nodeFs from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { hostname } from 'node:os';
import { kill, pid as ownPid } from 'node:process';
import { join } from 'node:path';
import { CollectionsError, OutputError } from '../../errors.js';
import { createExclusive, fileError, nodeFileSystem } from '../../io/files.js';

export interface LockOwner {
  pid: number;
  host: string;
  /** ISO 8601 */
  since: string;
}

/**
 * How often the holder refreshes the lock folder's mtime, ms (proper-lockfile's `update`): five
 * chances within {@link LOCK_STALE_MS}, so a slow disk or a busy event loop does not lose the lock.
 */
export const LOCK_UPDATE_MS = 2_000;
/** How long a lock folder's mtime may stand still before another export takes it over, ms (proper-lockfile's default `stale`). */
export const LOCK_STALE_MS = 10_000;

export interface OutputLock {
  readonly path: string;
  readonly lost: CollectionsError | undefined;
  /** @throws {CollectionsError} (exit 7, `E_LOCKED`) {@link OutputLock.lost}, once the lock was found compromised */
  check(): void;
  /**
   * Idempotent; never throws. A compromised lock's folder is removed only while its `owner.json`
   * still names this holder (never another export's lock).
   */
  release(): Promise<void>;
}

export interface LockOutputOptions {
  /** Default this process's (proper-lockfile's own exit hook is process-wide). */
  pid?: number;
  /** Epoch ms */
  now: () => number;
  note: (line: string) => void;
  /** Default `process.kill(pid, 0)` semantics (ESRCH = dead). */
  isAlive?: (pid: number) => boolean;
  /** Called once when the held lock is found compromised (to stop the export at once). */
  onLost?: (error: CollectionsError) => void;
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

type Callback = (error: NodeJS.ErrnoException | null) => void;

/** A new file, never through a symlink planted in the folder. @throws {OutputError} (exit 7) */
async function writeOwner(path: string, text: string): Promise<void> {
  const handle = await createExclusive(nodeFileSystem, path, 0o644);
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}

const removeFolder = (path: string, callback: Callback): void => {
  nodeFs.rm(path, { recursive: true, force: true }, callback);
};

/**
 * proper-lockfile's file system for one lock. `mkdir` writes `owner.json` before it reports
 * success, so the folder mtime proper-lockfile then records (and compares before each refresh)
 * already counts that entry: written later, it would move the mtime behind proper-lockfile's back,
 * which then takes the lock for compromised and stops refreshing it. `rmdir` removes the folder
 * with its `owner.json` (proper-lockfile removes empty folders only).
 */
function lockFileSystem(owner: LockOwner) {
  const text = `${JSON.stringify(owner)}\n`;
  return {
    ...nodeFs,
    mkdir(path: string, callback: Callback): void {
      nodeFs.mkdir(path, (error) => {
        if (error) {
          callback(error);
          return;
        }
        writeOwner(join(path, 'owner.json'), text).then(
          () => callback(null),
          (failure: unknown) => {
            removeFolder(path, () => callback(failure as NodeJS.ErrnoException));
          },
        );
      });
    },
    rmdir: removeFolder,
    rmdirSync: (path: string) => nodeFs.rmSync(path, { recursive: true, force: true }),
  };
}

/** Undefined when `owner.json` is missing or unreadable (a lock being taken). */
async function readOwner(lockPath: string): Promise<LockOwner | undefined> {
  try {
    const o = JSON.parse(
      await readFile(join(lockPath, 'owner.json'), { encoding: 'utf8', flag: nodeFs.constants.O_RDONLY | nodeFs.constants.O_NOFOLLOW }),
    ) as Partial<LockOwner> | null;
    if (typeof o?.pid === 'number' && typeof o.host === 'string' && typeof o.since === 'string') return { pid: o.pid, host: o.host, since: o.since };
  } catch {
    // No owner recorded (yet): the lock is named without one.
  }
  return undefined;
}

const OWNER_TRIES = 10;
const OWNER_RETRY_MS = 10;

/** Gives a lock that is being taken (its folder made, its `owner.json` not yet written) up to about 100 ms to name its holder. */
async function readSettledOwner(lockPath: string): Promise<LockOwner | undefined> {
  for (let attempt = 1; ; attempt++) {
    const owner = await readOwner(lockPath);
    if (owner !== undefined || attempt >= OWNER_TRIES) return owner;
    await delay(OWNER_RETRY_MS);
  }
}

function lockedError(target: string, owner: LockOwner | undefined): CollectionsError {
  const who = owner ? `pid ${owner.pid}${owner.host === hostname() ? '' : ` on ${owner.host}`}, since ${owner.since}` : 'owner unknown';
  return new CollectionsError(`another export is writing ${target} (${who})`, 'E_LOCKED');
}

const sameOwner = (a: LockOwner | undefined, b: LockOwner): boolean => a?.pid === b.pid && a.host === b.host && a.since === b.since;

function lostError(target: string, lockPath: string, cause: Error): CollectionsError {
  // proper-lockfile re-codes every cause ECOMPROMISED; a vanished folder keeps its ENOENT message.
  const why = cause.message.includes('ENOENT') ? 'was removed' : 'was changed by another process or not refreshed in time';
  return new CollectionsError(`lost the lock of ${target}: ${lockPath} ${why}; stopped without writing more`, 'E_LOCKED', { cause });
}

const asLockError = (lockPath: string, error: unknown): OutputError =>
  error instanceof OutputError ? error : fileError('create the lock', lockPath, error);

async function deadOwner(target: string, lockPath: string, alive = processAlive): Promise<LockOwner> {
  const owner = await readSettledOwner(lockPath);
  if (owner === undefined || owner.host !== hostname() || alive(owner.pid)) throw lockedError(target, owner);
  return owner;
}

/** Takes the lock with `take`, taking over the lock of a dead process of this host. */
async function acquire(
  target: string,
  lockPath: string,
  take: () => Promise<() => Promise<void>>,
  options: LockOutputOptions,
): Promise<() => Promise<void>> {
  try {
    return await take();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw asLockError(lockPath, error);
  }
  const owner = await deadOwner(target, lockPath, options.isAlive);
  options.note(`collections: took over the stale lock of ${target} (pid ${owner.pid}, since ${owner.since})`);
  await rm(lockPath, { recursive: true, force: true });
  try {
    return await take();
  } catch (again) {
    if ((again as NodeJS.ErrnoException).code === 'ELOCKED') throw lockedError(target, await readOwner(lockPath));
    throw asLockError(lockPath, again);
  }
}

/**
 * Takes the lock of `target` at once (no waiting) until `release()`. A lock whose folder was removed
 * or changed, or not refreshed within {@link LOCK_STALE_MS}, is lost and the export must stop
 * writing; one of a dead process of this host, or stale, is taken over.
 * @throws {CollectionsError} (exit 7, `E_LOCKED`) `another export is writing F (pid N, since T)`
 * @throws {OutputError} (exit 7) when the lock folder cannot be made (EACCES, EROFS, ENOSPC…)
 */
export async function lockOutput(target: string, options: LockOutputOptions): Promise<OutputLock> {
  const { lock } = await import('proper-lockfile');
  const lockPath = `${target}.lock`;
  const owner: LockOwner = { pid: options.pid ?? ownPid, host: hostname(), since: new Date(options.now()).toISOString() };
  let lost: CollectionsError | undefined;
  let released = false;
  const onCompromised = (error: Error): void => {
    // proper-lockfile may report a refresh that was in flight when the lock was released: not a loss.
    if (released || lost !== undefined) return;
    lost = lostError(target, lockPath, error);
    options.onLost?.(lost);
  };
  const fs = lockFileSystem(owner);
  const take = () => lock(target, { realpath: false, lockfilePath: lockPath, fs, stale: LOCK_STALE_MS, update: LOCK_UPDATE_MS, onCompromised });
  const unlock = await acquire(target, lockPath, take, options);
  return {
    path: lockPath,
    get lost() {
      return lost;
    },
    check() {
      if (lost !== undefined) throw lost;
    },
    async release() {
      if (released) return;
      released = true;
      if (lost === undefined) await unlock().catch(() => undefined);
      else if (sameOwner(await readOwner(lockPath), owner)) await rm(lockPath, { recursive: true, force: true }).catch(() => undefined);
    },
  };
}

/** No lock, or one {@link lockOutput} would take over (its holder when named). */
export type LockFound = { kind: 'free' } | { kind: 'stale'; owner?: LockOwner };

/**
 * What {@link lockOutput} would find, taking nothing (the dry run's).
 * @throws {CollectionsError} (exit 7, `E_LOCKED`) `another export is writing F (pid N, since T)`
 * @throws {OutputError} (exit 7) when the lock folder cannot be checked
 */
export async function checkLock(target: string, options: Pick<LockOutputOptions, 'isAlive'> = {}): Promise<LockFound> {
  const { check } = await import('proper-lockfile');
  const lockPath = `${target}.lock`;
  let held: boolean;
  try {
    held = await check(target, { realpath: false, lockfilePath: lockPath, stale: LOCK_STALE_MS });
  } catch (error) {
    throw fileError('check the lock', lockPath, error);
  }
  if (!held) {
    if (!nodeFs.existsSync(lockPath)) return { kind: 'free' };
    return { kind: 'stale', owner: await readOwner(lockPath) };
  }
  return { kind: 'stale', owner: await deadOwner(target, lockPath, options.isAlive) };
}
