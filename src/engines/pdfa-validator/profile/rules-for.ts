import type { Profile, Rule } from './model.js';

/**
 * The rules that apply to an object: those of each type it is (a rule on `PDFont` applies to a
 * `PDType1Font`), once each, in profile order; the immediate ones or the deferred ones (checked after
 * every object was visited). Memoised per profile and list of types: objects of one kind share one list.
 */
const memo = new WeakMap<Profile, Map<string, readonly Rule[]>>();

export function rulesFor(profile: Profile, types: readonly string[], deferred: boolean): readonly Rule[] {
  let byTypes = memo.get(profile);
  if (byTypes === undefined) {
    byTypes = new Map();
    memo.set(profile, byTypes);
  }
  const key = `${deferred ? 'd' : 'i'}:${types.join(' ')}`;
  let rules = byTypes.get(key);
  if (rules === undefined) {
    const wanted = new Set(types);
    rules = profile.rules.filter((rule) => rule.deferred === deferred && wanted.has(rule.object));
    byTypes.set(key, rules);
  }
  return rules;
}
