import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time of whole process trees from /proc, for figures that a server's own process does not hold:
 * a Quire node's LibreOffice workers (Python and soffice.bin under the node), and a cluster's
 * redis-server and haproxy. Linux only.
 */

interface ProcStat {
  pid: number;
  ppid: number;
  /** The command name (comm), e.g. "soffice.bin". */
  name: string;
  /** utime + stime + cutime + cstime, in clock ticks. */
  ticks: number;
  /** utime + stime: the process's own time, without its reaped children. */
  ownTicks: number;
}

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  ticksPerSecond ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;
  return ticksPerSecond;
}

/** Every process's /proc/<pid>/stat that can still be read (processes end while we read). */
function allProcesses(): ProcStat[] {
  const found: ProcStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ownTicks = Number(fields[11]) + Number(fields[12]);
    const ticks = ownTicks + Number(fields[13]) + Number(fields[14]);
    found.push({ pid: Number(entry), ppid: Number(fields[1]), name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ticks, ownTicks });
  }
  return found;
}

export interface TreeCpu {
  /** CPU seconds (user + system) of the root and every descendant, alive or ended and reaped within the tree. */
  seconds: number;
  /** The processes of the tree right now, by command name (e.g. { node: 1, 'soffice.bin': 2, python3: 2 }). */
  processes: Record<string, number>;
  /**
   * Each live process's own CPU seconds (without reaped children), by pid: two readings subtracted
   * pid by pid say where a round's time went by command name, which the trees' totals cannot once a
   * worker was recycled (its whole lifetime then moves into its parent's reaped-children time).
   */
  own: Map<number, { name: string; seconds: number }>;
}

/**
 * CPU seconds the tree under `root` has used so far. Each process counts its own time plus that of
 * the children it has reaped (cutime/cstime), so a LibreOffice worker that was recycled between two
 * readings still counts, through its parent. A process that left the tree without being reaped by it
 * (re-parented to init) is not counted; soffice runs under its Python worker, which waits for it.
 */
export function treeCpu(root: number): TreeCpu {
  const processes = allProcesses();
  const children = new Map<number, ProcStat[]>();
  for (const p of processes) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const start = processes.find((p) => p.pid === root);
  if (!start) throw new Error(`process ${root} is gone`);
  let ticks = 0;
  const names: Record<string, number> = {};
  const own = new Map<number, { name: string; seconds: number }>();
  for (const stack = [start]; stack.length > 0; ) {
    const p = stack.pop()!;
    ticks += p.ticks;
    names[p.name] = (names[p.name] ?? 0) + 1;
    own.set(p.pid, { name: p.name, seconds: p.ownTicks / clockTicks() });
    stack.push(...(children.get(p.pid) ?? []));
  }
  return { seconds: ticks / clockTicks(), processes: names, own };
}

/**
 * CPU seconds between two readings of the same trees by command name, from each process's own time:
 * a process that started in between counts whole; what processes that ended in between used after
 * the first reading, and short-lived children (tool runs), is `ended` (the trees' total minus the rest).
 */
export function ownSecondsByName(before: TreeCpu[], after: TreeCpu[]): Record<string, number> {
  const earlier = new Map(before.flatMap((tree) => [...tree.own]));
  const split: Record<string, number> = {};
  for (const [pid, { name, seconds }] of after.flatMap((tree) => [...tree.own])) {
    const previous = earlier.get(pid);
    split[name] = (split[name] ?? 0) + seconds - (previous?.name === name ? previous.seconds : 0);
  }
  const total = after.reduce((sum, tree) => sum + tree.seconds, 0) - before.reduce((sum, tree) => sum + tree.seconds, 0);
  split.ended = total - Object.values(split).reduce((sum, seconds) => sum + seconds, 0);
  return split;
}

/** The children of `parent` with the command name `name` (e.g. the haproxy or redis-server a helper started). */
export function childrenNamed(parent: number, name: string): number[] {
  return allProcesses()
    .filter((p) => p.ppid === parent && p.name === name)
    .map((p) => p.pid);
}

/**
 * Sets the CPU affinity of every thread of `pid` (`taskset -a -p -c`). Returns an error text, or
 * undefined when it was set. Processes the target starts later inherit it: undo it after the run.
 */
export function setAffinity(pid: number, cpus: string): string | undefined {
  const result = spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { encoding: 'utf8' });
  if (result.status === 0) return undefined;
  return (result.error?.message ?? result.stderr ?? `taskset exited ${result.status}`).trim();
}
