import type { Redis } from 'ioredis';
import type { MemberRecord } from '../operations/admin/cluster-status.js';
import { lockKey } from '../storage/redis-document-locks.js';

/**
 * The owner a node's document leases carry (RedisDocumentLocks `owner`): its id and start time, so that
 * the sweep of a lost incarnation never touches the leases of the same node started again.
 */
export function leaseOwner(member: Pick<MemberRecord, 'id' | 'startedAt'>): string {
  return `${member.id}@${member.startedAt}`;
}

/** KEYS[1] a lock; ARGV[1] the owner: deletes it only while its value is `<owner>:<token>` (atomic with the check). */
const RELEASE_IF_OWNED = `local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, #ARGV[1] + 1) == ARGV[1] .. ':' and string.match(string.sub(v, #ARGV[1] + 2), '^%d+$') then
  return redis.call('DEL', KEYS[1])
end
return 0`;

/**
 * Releases the document locks a lost member held, at once instead of at their expiry: every lock key
 * (SCAN, never KEYS: Redis keeps serving meanwhile) whose lease names the member as owner. A lease
 * the member renewed into the next holder's hands cannot exist (a lease is only ever deleted while it
 * is still the member's), and the fencing token keeps a member that comes back from committing.
 */
export async function releaseDocumentLocks(redis: Redis, keyPrefix: string, member: Pick<MemberRecord, 'id' | 'startedAt'>): Promise<number> {
  const owner = leaseOwner(member);
  // SCAN sees whole key names; the client adds the prefix to the keys of EVAL itself.
  const pattern = `${keyPrefix}${lockKey('*', '*')}`;
  let released = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    cursor = next;
    for (const key of keys) released += Number(await redis.eval(RELEASE_IF_OWNED, 1, key.slice(keyPrefix.length), owner));
  } while (cursor !== '0');
  return released;
}
