import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { QuireError } from '../core/errors.js';
import { isId } from '../core/ids.js';
import { ContentFiles, moveIntoPlace, removeSessionDir } from './document-files.js';
import { activeVersion, type CommitLimits, type ContentFile, type DocumentRecord, type DocumentStore, diskSpaceError, maxFilesError, type StorageUsage } from './document-store.js';
import { lockKey } from './redis-document-locks.js';
import { execMulti, redisCall, StoreUnavailableError, type RedisClient } from './redis/connection.js';
import { uncachedReads, type RedisReads } from './redis/read-cache.js';

/** How often the all-sessions usage for the metrics is read from Redis (totalUsage() is synchronous). */
const TOTAL_REFRESH_MS = 5_000;

export interface RedisDocumentStoreOptions {
  /** This node's name: its own temporary directory under `<dataDir>/tmp/`, the only one it empties at start. */
  nodeName: string;
  /** The lease this node holds on a document (RedisDocumentLocks.fenceFor): a commit under a lock goes through only while Redis still holds that lease. */
  fenceFor?: (sessionId: string, documentId: string) => string | undefined;
  /**
   * The commit record of the cluster job whose attempt makes this write, if any (storage/queue/redis-job-commits.ts):
   * the write marks it committed, with the document's id, in the same script — a node that dies right after
   * the write leaves a committed job, not one "claimed" whose change may or may not be there.
   */
  commitRecord?: () => { key: string; attempt: string } | undefined;
  /** Told, for every document get/list reads, whether its lock key is set (by any node): RedisDocumentLocks.observe, for `isFileLocked`. */
  lockSeen?: (sessionId: string, documentId: string, locked: boolean) => void;
  /**
   * How `get` reads (storage/redis/read-cache.ts): a record this node does not hold the lease of comes
   * from this node's memory while Redis has not reported a change of the session's index or the lock.
   */
  reads?: RedisReads;
}

/**
 * The cluster's document store: the index (the records, per-session usage) in Redis, the content on
 * the shared data dir in the same layout as FileDocumentStore (`storage/<sessionId>/<documentId>/c-<id>`),
 * so any node serves any document. Content is renamed into place under a fresh name first and the
 * index written after, so a document becomes visible only once its content is complete (rename is
 * atomic on one file system, the shared mount included); a failed index write removes the new file.
 *
 * Concurrency across nodes: every record carries a revision (`rev`, kept in the JSON the store
 * returns); an update names the revision it was made from and is refused (409) when another node
 * changed the document meanwhile — no lost update. A commit made under a document lock is fenced by
 * the lease (Lua: the lock key must still hold this node's lease), so a node whose lease expired cannot
 * overwrite the next holder's result. The limits an add or update is given are checked by the same
 * script that writes it, so two nodes committing for one session at the same instant cannot both pass.
 *
 * Keys: `docs:<sessionId>` documentId → record, `docs-size:<sessionId>` documentId → "bytes historyBytes",
 * `docs-usage:<sessionId>` {files, bytes, historyBytes}, `docs-usage-total` the sum of all sessions.
 */
export class RedisDocumentStore extends ContentFiles implements DocumentStore {
  private total: StorageUsage = { files: 0, bytes: 0, historyBytes: 0 };
  private refresher: NodeJS.Timeout | undefined;
  private readonly reads: RedisReads;
  private readonly uncached: RedisReads;

  constructor(
    private readonly redis: RedisClient,
    dataDir: string,
    private readonly options: RedisDocumentStoreOptions,
  ) {
    super(dataDir, path.join(dataDir, 'tmp', `node-${options.nodeName.replace(/[^A-Za-z0-9._-]/g, '_')}`));
    this.uncached = uncachedReads(redis);
    this.reads = options.reads ?? this.uncached;
  }

  async open(): Promise<void> {
    // Only this node's scratch: the other nodes' uploads in progress live next to it on the shared mount.
    await rm(this.tempDir, { recursive: true, force: true });
    await mkdir(this.tempDir, { recursive: true });
    await mkdir(this.storageDir, { recursive: true });
    await this.refreshTotal().catch(() => undefined);
    this.refresher = setInterval(() => void this.refreshTotal().catch(() => undefined), TOTAL_REFRESH_MS);
    this.refresher.unref();
  }

  /** Stops the metrics refresh; the connection belongs to the wiring. */
  close(): void {
    if (this.refresher) clearInterval(this.refresher);
    this.refresher = undefined;
  }

  async add(record: DocumentRecord, tempFile: string, limits?: CommitLimits): Promise<void> {
    const dir = await moveIntoPlace(this.storageDir, record, tempFile);
    const stored = { ...record, rev: 1 };
    const [bytes, historyBytes] = sizes(record);
    const commit = this.commitRecord();
    try {
      const added = await this.written(record.sessionId, () =>
        this.redis.eval(
          ADD,
          5,
          ...this.keys(record.sessionId),
          commit.key,
          record.id,
          JSON.stringify(stored),
          bytes,
          historyBytes,
          String(limits?.maxFiles ?? 0),
          String(limits?.diskSpaceLimit ?? 0),
          commit.attempt,
        ),
      );
      if (added === -1) throw maxFilesError(limits!.maxFiles);
      if (added === -2) throw diskSpaceError(limits!.diskSpaceLimit);
      if (added !== 1) throw new Error(`document ${record.id} exists already`);
    } catch (error) {
      if (!outcomeUnknown(error)) await rm(dir, { recursive: true, force: true });
      throw error;
    }
    (record as Revised).rev = 1;
  }

  async update(record: DocumentRecord, tempFile?: string, limits?: CommitLimits): Promise<void> {
    const newFile = tempFile ? this.filePath(record, activeVersion(record).file) : undefined;
    if (tempFile && newFile) await rename(tempFile, newFile);
    const expected = (record as Revised).rev;
    const stored: Revised = { ...record, rev: (expected ?? 0) + 1 };
    const [bytes, historyBytes] = sizes(record);
    const fence = this.options.fenceFor?.(record.sessionId, record.id) ?? '';
    const commit = this.commitRecord();
    let previous: DocumentRecord;
    try {
      const reply = (await this.written(record.sessionId, () =>
        this.redis.eval(
          UPDATE,
          6,
          ...this.keys(record.sessionId),
          lockKey(record.sessionId, record.id),
          commit.key,
          record.id,
          JSON.stringify(stored),
          bytes,
          historyBytes,
          expected === undefined ? '' : String(expected),
          fence,
          String(limits?.diskSpaceLimit ?? 0),
          commit.attempt,
        ),
      )) as [number, string?];
      if (reply[0] === -1) throw new QuireError('DOCUMENT_NOT_FOUND', `No document with id "${record.id}" exists in this session.`);
      if (reply[0] === -2) throw leaseLost(record.id);
      if (reply[0] === -3) throw changedMeanwhile(record.id);
      if (reply[0] === -4) throw diskSpaceError(limits!.diskSpaceLimit);
      previous = JSON.parse(reply[1]!) as DocumentRecord;
    } catch (error) {
      if (newFile && !outcomeUnknown(error)) await rm(newFile, { force: true });
      throw error;
    }
    (record as Revised).rev = stored.rev;
    const kept = new Set(record.versions.map((v) => v.file));
    for (const version of previous.versions) {
      if (!kept.has(version.file)) await rm(this.filePath(record, version.file), { force: true });
    }
  }

  async get(sessionId: string, documentId: string): Promise<DocumentRecord | undefined> {
    const seen = this.options.lockSeen;
    // Under this node's own lease (an operation about to commit) the record is read from Redis itself.
    const reads = this.options.fenceFor?.(sessionId, documentId) === undefined ? this.reads : this.uncached;
    if (!seen) {
      return reads.read(`doc:${sessionId}:${documentId}`, [docsKey(sessionId)], async (redis) => {
        const value = await redisCall(() => redis.hget(docsKey(sessionId), documentId));
        return value === null ? undefined : (JSON.parse(value) as DocumentRecord);
      });
    }
    // The record and whether any node holds its lock, in one round trip.
    const lock = lockKey(sessionId, documentId);
    const found = await reads.read(`doc+lock:${sessionId}:${documentId}`, [docsKey(sessionId), lock], async (redis) => {
      const [value, locked] = (await execMulti(redis.pipeline().hget(docsKey(sessionId), documentId).exists(lock))) as [string | null, number];
      return value === null ? undefined : { record: JSON.parse(value) as DocumentRecord, locked: locked === 1 };
    });
    if (!found) return undefined;
    seen(sessionId, documentId, found.locked);
    return found.record;
  }

  async list(sessionId: string): Promise<DocumentRecord[]> {
    const values = await redisCall(() => this.redis.hvals(docsKey(sessionId)));
    const records = values.map((value) => JSON.parse(value) as DocumentRecord);
    const seen = this.options.lockSeen;
    if (seen && records.length > 0) {
      const locks = await redisCall(() => this.redis.mget(records.map((record) => lockKey(sessionId, record.id))));
      records.forEach((record, i) => seen(sessionId, record.id, locks[i] !== null));
    }
    return records;
  }

  async content(sessionId: string, documentId: string, versionId?: number): Promise<ContentFile | undefined> {
    const record = await this.get(sessionId, documentId);
    return record && this.contentOf(record, versionId);
  }

  async delete(sessionId: string, documentId: string): Promise<boolean> {
    const fence = this.options.fenceFor?.(sessionId, documentId) ?? '';
    const reply = await this.written(sessionId, () => this.redis.eval(DELETE, 5, ...this.keys(sessionId), lockKey(sessionId, documentId), documentId, fence));
    if (reply === -2) throw leaseLost(documentId);
    if (reply !== 1) return false;
    // From here on the document is gone for every node; its files follow.
    await rm(this.documentDir(sessionId, documentId), { recursive: true, force: true });
    return true;
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.written(sessionId, () => this.redis.eval(DELETE_SESSION, 4, ...this.keys(sessionId)));
    await removeSessionDir(this.storageDir, this.tempDir, sessionId);
  }

  async usage(sessionId: string): Promise<StorageUsage> {
    const [files, bytes, historyBytes] = await redisCall(() => this.redis.hmget(usageKey(sessionId), 'files', 'bytes', 'historyBytes'));
    return { files: Number(files ?? 0), bytes: Number(bytes ?? 0), historyBytes: Number(historyBytes ?? 0) };
  }

  /** Usage of all sessions of the cluster, as read from Redis at most TOTAL_REFRESH_MS ago (for the metrics). */
  totalUsage(): StorageUsage {
    return { ...this.total };
  }

  async sessionIds(): Promise<string[]> {
    const names = await readdir(this.storageDir).catch(() => [] as string[]);
    return names.filter(isId);
  }

  private async refreshTotal(): Promise<void> {
    const [files, bytes, historyBytes] = await redisCall(() => this.redis.hmget(TOTAL, 'files', 'bytes', 'historyBytes'));
    this.total = { files: Number(files ?? 0), bytes: Number(bytes ?? 0), historyBytes: Number(historyBytes ?? 0) };
  }

  /** The commit record a write marks (KEYS and ARGV of ADD/UPDATE; a key no record has and no attempt when none). */
  private commitRecord(): { key: string; attempt: string } {
    return this.options.commitRecord?.() ?? { key: NO_COMMIT_RECORD, attempt: '' };
  }

  /** A write of the session's index: through `reads`, so that this node's next read of it is not served from memory. */
  private written<T>(sessionId: string, write: () => Promise<T>): Promise<T> {
    return this.reads.writing([docsKey(sessionId)], () => redisCall(write));
  }

  private keys(sessionId: string): [string, string, string, string] {
    return [docsKey(sessionId), `docs-size:${sessionId}`, usageKey(sessionId), TOTAL];
  }
}

/** A record as this store hands it out: with the revision an update must name. */
type Revised = DocumentRecord & { rev?: number };

const TOTAL = 'docs-usage-total';
/** Named as the commit-record KEYS entry of a write that belongs to no job (never written). */
const NO_COMMIT_RECORD = 'queue:commit:-';

function docsKey(sessionId: string): string {
  return `docs:${sessionId}`;
}

function usageKey(sessionId: string): string {
  return `docs-usage:${sessionId}`;
}

/** Bytes of all kept states, and of the inactive ones (as strings for the scripts). */
function sizes(record: DocumentRecord): [string, string] {
  let bytes = 0;
  let historyBytes = 0;
  for (const version of record.versions) {
    bytes += version.size;
    if (version.id !== record.activeVersion) historyBytes += version.size;
  }
  return [String(bytes), String(historyBytes)];
}

function leaseLost(documentId: string): QuireError {
  return new QuireError('DOCUMENT_LOCKED', `The lock on document "${documentId}" expired while the operation ran and another operation may hold it now; nothing was stored. Try again.`);
}

function changedMeanwhile(documentId: string): QuireError {
  return new QuireError('DOCUMENT_LOCKED', `The document "${documentId}" was changed by another operation meanwhile; nothing was stored. Read it again and retry.`);
}

// The scripts (a negative number is written 0 - x: Lua's -0 reaches Redis as "-0", which HINCRBY refuses): KEYS[1] docs, KEYS[2] sizes, KEYS[3] session usage, KEYS[4] total usage (KEYS[5] the document's lock).
const ACCOUNT = `local function account(sign, bytes, history)
  redis.call('HINCRBY', KEYS[3], 'files', sign)
  redis.call('HINCRBY', KEYS[3], 'bytes', bytes)
  redis.call('HINCRBY', KEYS[3], 'historyBytes', history)
  redis.call('HINCRBY', KEYS[4], 'files', sign)
  redis.call('HINCRBY', KEYS[4], 'bytes', bytes)
  redis.call('HINCRBY', KEYS[4], 'historyBytes', history)
end
local function stored_size(id)
  local size = redis.call('HGET', KEYS[2], id) or '0 0'
  local b, h = string.match(size, '(%d+) (%d+)')
  return tonumber(b), tonumber(h)
end
`;

/** Marks the job's commit record (KEYS[k]) committed with the document's id, if the attempt ARGV[a] holds its claim. */
const MARK_COMMITTED = `
local function mark_committed(k, a, id)
  if ARGV[a] ~= '' and redis.call('HGET', KEYS[k], 'attempt') == ARGV[a] then
    redis.call('HSET', KEYS[k], 'state', 'committed', 'outcome', id)
  end
end
`;

/** KEYS[5]: a job's commit record. ARGV: id, record, bytes, historyBytes, maxFiles, diskSpaceLimit (0 = unlimited), the job attempt ('' = none). 1 = added, 0 = the id exists, -1 = maxFiles reached, -2 = over the diskSpaceLimit. */
const ADD = `${ACCOUNT}${MARK_COMMITTED}
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
local usage = redis.call('HMGET', KEYS[3], 'files', 'bytes')
local max_files, disk = tonumber(ARGV[5]), tonumber(ARGV[6])
if max_files > 0 and (tonumber(usage[1]) or 0) + 1 > max_files then return -1 end
if disk > 0 and (tonumber(usage[2]) or 0) + tonumber(ARGV[3]) > disk then return -2 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3] .. ' ' .. ARGV[4])
account(1, tonumber(ARGV[3]), tonumber(ARGV[4]))
mark_committed(5, 7, ARGV[1])
return 1`;

/** KEYS[5]: the document's lock, KEYS[6]: a job's commit record. ARGV: id, record, bytes, historyBytes, expected rev ('' = any), fence ('' = none), diskSpaceLimit (0 = unlimited), the job attempt ('' = none). {rev, previous record} or {-1} gone, {-2} lease lost, {-3} changed meanwhile, {-4} over the diskSpaceLimit. */
const UPDATE = `${ACCOUNT}${MARK_COMMITTED}
local old = redis.call('HGET', KEYS[1], ARGV[1])
if not old then return {-1} end
if ARGV[6] ~= '' and redis.call('GET', KEYS[5]) ~= ARGV[6] then return {-2} end
local rev = cjson.decode(old)['rev'] or 0
if ARGV[5] ~= '' and tonumber(ARGV[5]) ~= rev then return {-3} end
local b, h = stored_size(ARGV[1])
local disk = tonumber(ARGV[7]) or 0
if disk > 0 and (tonumber(redis.call('HGET', KEYS[3], 'bytes')) or 0) - b + tonumber(ARGV[3]) > disk then return {-4} end
account(0, tonumber(ARGV[3]) - b, tonumber(ARGV[4]) - h)
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3] .. ' ' .. ARGV[4])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
mark_committed(6, 8, ARGV[1])
return {rev + 1, old}`;

/** ARGV: id, fence ('' = none). 1 = deleted, 0 = not there, -2 = lease lost. */
const DELETE = `${ACCOUNT}
if ARGV[2] ~= '' and redis.call('GET', KEYS[5]) ~= ARGV[2] then return -2 end
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
local b, h = stored_size(ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
account(-1, 0 - b, 0 - h)
return 1`;

/** Removes a session's index and takes its usage off the total. */
const DELETE_SESSION = `local u = redis.call('HMGET', KEYS[3], 'files', 'bytes', 'historyBytes')
redis.call('HINCRBY', KEYS[4], 'files', 0 - (tonumber(u[1]) or 0))
redis.call('HINCRBY', KEYS[4], 'bytes', 0 - (tonumber(u[2]) or 0))
redis.call('HINCRBY', KEYS[4], 'historyBytes', 0 - (tonumber(u[3]) or 0))
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return 1`;

/**
 * Whether Redis may have applied a write whose answer never came (the connection dropped or the
 * command timed out after it was sent). Its content file then stays: a record naming a deleted file
 * would be a broken document, while a file no record names is only space, freed with its document or
 * session.
 */
function outcomeUnknown(error: unknown): boolean {
  return error instanceof StoreUnavailableError;
}
