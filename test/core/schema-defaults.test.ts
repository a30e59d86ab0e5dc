import Type from 'typebox';
import Value from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { withDefaults } from '../../src/core/schema-defaults.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { ConverterPage } from '../../src/operations/converter/options.schema.js';

// TypeBox's own Value.Default is the reference the server no longer loads: the results must agree.
describe('withDefaults', () => {
  it('fills what TypeBox fills for the configuration schema, from nothing and from a partial file', () => {
    for (const raw of [{}, { server: { port: 9000 }, engines: { ghostscript: '/usr/bin/gs' } }, { engines: { ghostscript: { maxMemory: '1GB' } }, users: [{ name: 'a', password: 'b' }] }]) {
      expect(withDefaults(ConfigSchema, structuredClone(raw))).toEqual(Value.Default(ConfigSchema, structuredClone(raw)));
    }
  });

  it('fills what TypeBox fills for an option schema', () => {
    expect(withDefaults(ConverterPage, {})).toEqual(Value.Default(ConverterPage, {}));
  });

  it('does not change the value it is given, and copies defaults', () => {
    const shared = { list: [1] };
    const schema = Type.Object({ a: Type.Object({ list: Type.Array(Type.Number()) }, { default: shared }), b: Type.Number({ default: 2 }) });
    const input = { b: 5 };
    const result = withDefaults(schema, input) as { a: { list: number[] }; b: number };
    expect(input).toEqual({ b: 5 });
    expect(result).toEqual({ a: { list: [1] }, b: 5 });
    result.a.list.push(2);
    expect(shared.list).toEqual([1]);
  });

  it('takes the defaults of the union variant of the value’s type, and of each array item', () => {
    const tool = Type.Union([Type.String(), Type.Object({ executable: Type.String({ default: 'gs' }), maxMemory: Type.String({ default: '2GB' }) })], { default: {} });
    const schema = Type.Object({ tool, list: Type.Array(Type.Object({ n: Type.Number({ default: 1 }) }), { default: [] }) });
    expect(withDefaults(schema, {})).toEqual({ tool: { executable: 'gs', maxMemory: '2GB' }, list: [] });
    expect(withDefaults(schema, { tool: '/opt/gs', list: [{}, { n: 3 }] })).toEqual({ tool: '/opt/gs', list: [{ n: 1 }, { n: 3 }] });
  });

  it('converts with the function given, before filling', () => {
    const schema = Type.Object({ port: Type.Integer({ default: 8080 }) });
    const toNumber = (s: { type?: string }, v: unknown) => (s.type === 'integer' && typeof v === 'string' ? Number(v) : v);
    expect(withDefaults(schema, { port: '9000' }, toNumber)).toEqual({ port: 9000 });
  });
});
