/**
 * Placement on the page preview: the members of a web service's body that take a rectangle on a page
 * (an object with `position: {x, y, width, height, metrics, coordinates}`, and `page` or `pages` beside
 * it: signature.add.appearance, each barcode.add item), found in the schema so that a new service with
 * such a member gets the drag without UI code; and the body with a dragged rectangle written there.
 */
import type { PageBox } from '../preview/pdf-preview';
import { type Components, kindOf, resolve, type Schema, withMember } from './schema';

export interface PlacementTarget {
  path: Array<string | number>;
  /** The page member beside `position`: an integer page, or a page range string. */
  pageKey?: 'page' | 'pages';
}

const MM_PER_POINT = 25.4 / 72;
const EDGES = ['x', 'y', 'width', 'height'];

/**
 * Every placeable member: objects are followed in the schema, arrays through the items the body has;
 * inside an item only the members it has (a toolbox step offers only the operation it was given).
 */
export function placementTargets(schema: Schema | undefined, components: Components, value: unknown, path: Array<string | number> = [], depth = 0, inItem = false): PlacementTarget[] {
  if (depth > 8) return [];
  const resolved = resolve(schema, components);
  const kind = kindOf(resolved);
  if (kind === 'array') return Array.isArray(value) ? value.flatMap((item, index) => placementTargets(resolved.items, components, item, [...path, index], depth + 1, true)) : [];
  if (kind !== 'object') return [];
  const members = resolved.properties ?? {};
  const found: PlacementTarget[] = [];
  const position = members.position ? resolve(members.position, components) : undefined;
  if (position && EDGES.every((edge) => position.properties?.[edge])) found.push({ path, pageKey: members.page ? 'page' : members.pages ? 'pages' : undefined });
  for (const [key, member] of Object.entries(members)) {
    const present = (value as Record<string, unknown> | undefined)?.[key];
    if (key === 'position' || (inItem && present === undefined)) continue;
    found.push(...placementTargets(member, components, present, [...path, key], depth + 1, inItem));
  }
  return found;
}

function valueAt(value: unknown, path: Array<string | number>): unknown {
  return path.reduce<unknown>((current, key) => (current && typeof current === 'object' ? (current as Record<string | number, unknown>)[key] : undefined), value);
}

function withValueAt(value: unknown, path: Array<string | number>, next: unknown): unknown {
  if (path.length === 0) return next;
  const [key, ...rest] = path;
  return withMember(value, key!, withValueAt(valueAt(value, [key!]), rest, next));
}

const mm = (points: number) => Math.round(points * MM_PER_POINT * 10) / 10;

/** The body with the box (points, top-left of the displayed page) as the target's position in millimetres, user coordinates. */
export function place(body: Record<string, unknown>, target: PlacementTarget, box: PageBox): Record<string, unknown> {
  const member = (valueAt(body, target.path) ?? {}) as Record<string, unknown>;
  const position = {
    ...((member.position as Record<string, unknown> | undefined) ?? {}),
    x: mm(box.x),
    y: mm(box.y),
    width: mm(box.width),
    height: mm(box.height),
    metrics: 'mm',
    coordinates: 'user',
  };
  const next: Record<string, unknown> = { ...member, position };
  if (target.pageKey === 'page') next.page = box.page;
  if (target.pageKey === 'pages') next.pages = String(box.page);
  return withValueAt(body, target.path, next) as Record<string, unknown>;
}
