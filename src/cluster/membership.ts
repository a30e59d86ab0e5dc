import { jsonRecord } from '../core/json-record.js';
import type { Redis } from 'ioredis';
import type { MemberRecord, MemberView, NodeRole } from '../operations/admin/cluster-status.js';

/** A member that was found lost stays listed (state `down`) this long, then the sweeper forgets it. */
const FORGET_LOST_AFTER_MS = 24 * 3600_000;

/** Keys under the connection's key prefix (`cluster.redis.keyPrefix`). */
const MEMBERS = 'cluster:members';
const LOST_AT = 'cluster:lost-at';
const alive = (id: string) => `cluster:alive:${id}`;
/** One sweep per loss: a member's loss is identified by its last heartbeat. */
const swept = (member: MemberRecord) => `cluster:swept:${member.id}:${member.heartbeatAt}`;

export interface MemberIdentity {
  id: string;
  role: NodeRole;
  address: string;
  version: string;
  startedAt: number;
}

/** What changes between heartbeats: the machine's load and the engines' states (read from the status service). */
export type MemberSnapshot = Pick<MemberRecord, 'loadAverage' | 'cpuCount' | 'health' | 'engines' | 'pools'>;

/** Releases what a lost member held (its document locks); resolves with how many were released, for the log. */
export type LeaseRelease = (member: MemberRecord) => Promise<number>;

export interface MembershipOptions {
  redis: Redis;
  self: MemberIdentity;
  heartbeatMs: number;
  /** Heartbeats a member may miss before it counts as lost: its heartbeat expires after heartbeatMs × missedHeartbeats. */
  missedHeartbeats: number;
  snapshot(): MemberSnapshot;
  log(level: 'info' | 'warn', message: string, detail?: object): void;
}

/**
 * This node's membership of the cluster. Every `heartbeatMs` it writes its record (role, address,
 * version, load, engine pools, health) into the members hash and renews `cluster:alive:<id>`, a key
 * that expires after `missedHeartbeats` heartbeats: whether a member is alive is Redis's expiry,
 * not a comparison of the nodes' clocks. A member whose key expired is lost; the coordinator (the
 * member running longest) sweeps it once per loss: a SET NX claim makes the sweep happen once even if
 * two nodes both believe they coordinate, the lease releases run (document locks it held), and the
 * loss time is recorded. A clean stop removes the record: a node that left is not lost.
 */
export class Membership {
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private readonly releases: LeaseRelease[] = [];
  private failing = false;

  constructor(private readonly options: MembershipOptions) {}

  get id(): string {
    return this.options.self.id;
  }

  /** Registers what to release when a member is found lost (the lock store's `releaseHeldBy`). */
  onLost(release: LeaseRelease): void {
    this.releases.push(release);
  }

  /** Writes the first heartbeat and keeps beating; while Redis cannot be reached it keeps trying (said once in the log). */
  async start(): Promise<void> {
    const { redis, self } = this.options;
    try {
      const holder = await redis.get(alive(self.id));
      if (holder !== null && holder !== String(self.startedAt)) {
        // Another live process uses this id (or this one was restarted within the heartbeat window): the records would mix.
        this.options.log('warn', `cluster.node.id "${self.id}" was alive in the cluster until now: a second node with the same id overwrites its record`, { id: self.id });
      }
      await this.beat();
    } catch (error) {
      this.failing = true;
      this.options.log('warn', 'cluster heartbeat failed; other nodes will see this one as lost if it lasts', { err: error });
    }
    this.timer = setInterval(() => void this.tick(), this.options.heartbeatMs);
    this.timer.unref();
  }

  /** Stops beating and leaves the cluster (a clean stop is no loss: nothing of ours needs sweeping). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.beating?.catch(() => undefined);
    const { redis, self } = this.options;
    await redis
      .multi()
      .hdel(MEMBERS, self.id)
      .hdel(LOST_AT, self.id)
      .del(alive(self.id))
      .exec()
      .catch(() => undefined);
  }

  /** Every member the store knows, alive or lost, the coordinator marked; oldest first. */
  async members(): Promise<MemberView[]> {
    const { redis } = this.options;
    const [records, lostAt] = await Promise.all([redis.hgetall(MEMBERS), redis.hgetall(LOST_AT)]);
    const parsed = Object.values(records).flatMap((text) => parseRecord(text));
    const pipeline = redis.pipeline();
    for (const record of parsed) pipeline.exists(alive(record.id));
    const exists = (await pipeline.exec()) ?? [];
    const views: MemberView[] = parsed.map((record, i) => {
      const lost = exists[i]?.[1] !== 1;
      const at = lostAt[record.id];
      return { ...record, lost, ...(lost && at ? { lostAt: Number(at) } : {}), coordinator: false };
    });
    views.sort((a, b) => a.startedAt - b.startedAt || a.id.localeCompare(b.id));
    const coordinator = views.find((v) => !v.lost);
    if (coordinator) coordinator.coordinator = true;
    return views;
  }

  private async tick(): Promise<void> {
    if (this.beating) return;
    this.beating = (async () => {
      try {
        await this.beat();
        await this.sweep();
        if (this.failing) this.options.log('info', 'cluster heartbeat written again');
        this.failing = false;
      } catch (error) {
        // Redis away: the connection reconnects by itself; say so once, not every heartbeat.
        if (!this.failing) this.options.log('warn', 'cluster heartbeat failed; other nodes will see this one as lost if it lasts', { err: error });
        this.failing = true;
      } finally {
        this.beating = undefined;
      }
    })();
    await this.beating;
  }

  private async beat(): Promise<void> {
    const { redis, self, heartbeatMs, missedHeartbeats } = this.options;
    const record: MemberRecord = { ...self, heartbeatAt: Date.now(), ...this.options.snapshot() };
    await redis
      .multi()
      .hset(MEMBERS, self.id, JSON.stringify(record))
      .set(alive(self.id), String(self.startedAt), 'PX', heartbeatMs * missedHeartbeats)
      .hdel(LOST_AT, self.id)
      .exec();
  }

  /** The coordinator's round: release what lost members held, once per loss, and forget members lost long ago. */
  private async sweep(): Promise<void> {
    const members = await this.members();
    if (!members.find((m) => m.coordinator && m.id === this.id)) return;
    const { redis } = this.options;
    for (const member of members.filter((m) => m.lost)) {
      if (member.lostAt !== undefined) {
        if (Date.now() - member.lostAt > FORGET_LOST_AFTER_MS) await redis.multi().hdel(MEMBERS, member.id).hdel(LOST_AT, member.id).exec();
        continue;
      }
      if ((await redis.set(swept(member), '1', 'PX', FORGET_LOST_AFTER_MS, 'NX')) !== 'OK') continue;
      let released = 0;
      for (const release of this.releases) {
        try {
          released += await release(member);
        } catch (error) {
          this.options.log('warn', 'releasing the leases of a lost cluster member failed', { member: member.id, err: error });
        }
      }
      await redis.hset(LOST_AT, member.id, String(Date.now()));
      this.options.log('warn', `cluster member ${member.id} is lost (no heartbeat since ${new Date(member.heartbeatAt).toISOString()}); released ${released} lease(s)`, {
        member: member.id,
        released,
      });
    }
  }
}

function parseRecord(text: string): MemberRecord[] {
  return jsonRecord<MemberRecord>(text, (record) => typeof record.id === 'string' && typeof record.startedAt === 'number');
}
